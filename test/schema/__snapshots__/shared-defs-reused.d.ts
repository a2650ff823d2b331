interface SharedDefsReused {
  subtotal?: SharedDefsReusedMoney;
  tax?: SharedDefsReusedMoney;
  lines?: {
    price?: SharedDefsReusedMoney;
  }[];
}

interface SharedDefsReusedMoney {
  amount: number;
  currency: string;
}
