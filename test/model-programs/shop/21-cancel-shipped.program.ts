// Task: Try to cancel order O-1001 (it may have shipped) and tell me what happened.
try {
  const reply = await tools.shop.cancel_order({ id: "O-1001" });
  return { cancelled: true, reply: reply[0].text };
} catch (error) {
  return { cancelled: false, code: error.code, message: error.message };
}
