/** A map that forgets its oldest entries past `limit`: for caches whose keys come from requests. */
export class BoundedMap<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly limit: number) {}

  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  set(key: K, value: V): void {
    if (this.entries.size >= this.limit) this.entries.delete(this.entries.keys().next().value as K);
    this.entries.set(key, value);
  }
}
