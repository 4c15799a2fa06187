/**
 * A function of a string whose answer never changes, remembered by its argument: for what the hot path would
 * otherwise compute again on every call from the same few inputs (a connection's URLs, the addresses they resolve
 * to). The memory is bounded by forgetting everything once it holds `maxEntries`: that costs a recomputation, never
 * a wrong answer.
 */
export function remembered<Value>(compute: (key: string) => Value, maxEntries: number): (key: string) => Value {
  const answers = new Map<string, Value>();
  return (key) => {
    let value = answers.get(key);
    if (value === undefined) {
      value = compute(key);
      if (answers.size >= maxEntries) answers.clear();
      answers.set(key, value);
    }
    return value;
  };
}
