export function price(amount, currency) {
  if (currency == "EUR") {
    return `${amount.toFixed(2)} €`;
  }
  return `$${amount.toFixed(2)}`;
}
