/** Orders whose contract checkout this process has begun and not yet recorded: the gauge's source. */
export class PendingOnChainCheckouts {
  private readonly orders = new Set<string>();

  begin(orderId: string): void {
    this.orders.add(orderId);
  }

  end(orderId: string): void {
    this.orders.delete(orderId);
  }

  get size(): number {
    return this.orders.size;
  }
}
