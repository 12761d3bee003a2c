/** A small shop knowledge base where one question is answered, one offered with a doubt, one falls back. */
export const ENTRIES = [
  {
    title: "Refunds",
    content:
      "Refunds are issued within 14 days of purchase. Email billing@example.com with your order number.",
  },
  {
    title: "Shipping",
    content: "Standard shipping takes 5 to 7 business days; express shipping takes 2 days.",
  },
  {
    title: "Gift cards",
    content: "Gift cards are sold in amounts from 10 to 500 euros and never expire.",
  },
  {
    title: "Returns",
    content: "Unused items in their original packaging can be returned within 30 days.",
  },
];
