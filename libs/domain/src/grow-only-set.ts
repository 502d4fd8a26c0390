/** What the versions of one set share: every member any of them added, in the order they came. */
interface Members<T> {
  order: Map<T, number>;
  list: T[];
  /** Running totals of a weight over `list` (see weigh): totals[i] is the sum over its first i. */
  weights: { of: (member: T) => number; totals: number[] } | null;
}

/**
 * An immutable set that only grows, for a state field that remembers everything it ever saw (a
 * cart's item ids). A state is a new object on every evolve, and copying such a set each time
 * made an aggregate's evolve cost grow with its whole history. Here the versions of one set
 * share their members; each version sees the first `size` of them. Adding to the newest version
 * extends what they share, which no older version can see; adding to an older one (a fold that
 * branches) copies what that one sees first.
 */
export class GrowOnlySet<T> implements Iterable<T> {
  /**
   * Private to the language, not only to the type, so comparing two sets (a test's toEqual)
   * compares their members, not what later versions added to what they share.
   */
  readonly #members: Members<T>;

  private constructor(
    members: Members<T>,
    readonly size: number,
  ) {
    this.#members = members;
  }

  static empty<T>(): GrowOnlySet<T> {
    return new GrowOnlySet({ order: new Map(), list: [], weights: null }, 0);
  }

  static of<T>(members: Iterable<T>): GrowOnlySet<T> {
    let set = GrowOnlySet.empty<T>();
    for (const member of members) set = set.add(member);
    return set;
  }

  has(member: T): boolean {
    const at = this.#members.order.get(member);
    return at !== undefined && at < this.size;
  }

  /** This set with `member`; this set itself is unchanged. */
  add(member: T): GrowOnlySet<T> {
    if (this.has(member)) return this;
    let members = this.#members;
    if (members.list.length !== this.size) {
      const list = members.list.slice(0, this.size);
      members = { order: new Map(list.map((seen, at) => [seen, at])), list, weights: null };
    }
    members.order.set(member, this.size);
    members.list.push(member);
    return new GrowOnlySet(members, this.size + 1);
  }

  /**
   * The sum of `weight` over the members, each member weighed once for all the versions that
   * share it, so a version's sum costs only what was added since one was last asked for (the
   * aggregate cache sizes every state it keeps). `weight` must be one function, not a new one
   * per call: another one weighs everything again.
   */
  weigh(weight: (member: T) => number): number {
    const members = this.#members;
    if (members.weights?.of !== weight) members.weights = { of: weight, totals: [0] };
    const { totals } = members.weights;
    for (let i = totals.length - 1; i < this.size; i++) totals.push(totals[i]! + weight(members.list[i]!));
    return totals[this.size]!;
  }

  *[Symbol.iterator](): Iterator<T> {
    const { list } = this.#members;
    for (let i = 0; i < this.size; i++) yield list[i]!;
  }
}
