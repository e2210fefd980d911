/**
 * `compute` remembered per key in a table of at most `maxEntries`, emptied when full: for pure
 * work a hot path repeats on a few keys (a Host's domain candidates, a target's Location), where a
 * flood of new keys costs only the work the table saves. `compute` must never answer undefined.
 */
export function boundedMemo<K, V>(maxEntries: number, compute: (key: K) => V): (key: K) => V {
  const table = new Map<K, V>();
  return (key) => {
    let value = table.get(key);
    if (value === undefined) {
      value = compute(key);
      if (table.size >= maxEntries) table.clear();
      table.set(key, value);
    }
    return value;
  };
}
