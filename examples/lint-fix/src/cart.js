var TAX_RATE = 0.2;

export function subtotal(items) {
  let sum = 0;
  for (const item of items) {
    sum += item.price * item.quantity;
  }
  return sum;
}

export function total(items) {
  let net = subtotal(items);
  return net * (1 + TAX_RATE);
}

export function isEmpty(items) {
  const debug = items.length;
  return items.length == 0;
}
