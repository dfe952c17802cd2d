/** Length as Postgres counts characters of varchar(n): code points, not UTF-16 units. */
export function codePoints(value: string): number {
  let count = 0;
  for (const _ of value) count++;
  return count;
}
