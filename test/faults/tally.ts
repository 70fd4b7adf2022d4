/**
 * Counts the cases a fault class tried and how many held, and prints one line per class (`fault class: N cases,
 * N held`), from which docs/reliability.md's table is made. A case that did not hold also fails its assertion.
 */
export function tally(faultClass: string): { case(held: boolean): void; report(): void } {
  let cases = 0;
  let held = 0;
  return {
    case(ok) {
      cases++;
      if (ok) held++;
    },
    report() {
      console.log(`fault class: ${faultClass}: ${cases} cases, ${held} held`);
    },
  };
}
