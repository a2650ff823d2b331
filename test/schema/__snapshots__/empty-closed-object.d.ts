interface EmptyClosedObject { [key: string]: never }
