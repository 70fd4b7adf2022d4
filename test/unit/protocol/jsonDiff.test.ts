// A view's next state is sent as what changed since the one before (src/protocol/jsonDiff.ts): applied to the
// state before, the patch must give exactly the state sent, as JSON sees it, without touching the one before.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyPatch, diffJson, sameJson } from '../../../src/protocol/jsonDiff';
import { uniform } from '../../../src/core/random';

const viaJson = (v: unknown) => JSON.parse(JSON.stringify(v)) as unknown;

/** A random JSON value: nested objects and arrays, keys from a small set so values of two draws overlap. */
function randomValue(rand: () => number, depth = 0): unknown {
  const r = rand();
  if (depth > 3 || r < 0.35) return [null, true, false, 0, 1.5, -2, 'a', 'b', '', '\u202e', NaN][Math.floor(rand() * 11)];
  if (r < 0.65) return Array.from({ length: Math.floor(rand() * 6) }, () => randomValue(rand, depth + 1));
  const o: Record<string, unknown> = {};
  for (const k of ['x', 'y', 'z', 'w', '__proto__', 'constructor']) if (rand() < 0.5) Object.defineProperty(o, k, { value: rand() < 0.1 ? undefined : randomValue(rand, depth + 1), enumerable: true, writable: true, configurable: true });
  return o;
}

/** `v` changed in a few places, as a judgement changes a model. */
function mutate(v: unknown, rand: () => number): unknown {
  if (rand() < 0.15) return randomValue(rand);
  if (Array.isArray(v)) {
    const out = v.map((x) => (rand() < 0.3 ? mutate(x, rand) : x));
    if (rand() < 0.3 && out.length > 0) out.splice(Math.floor(rand() * out.length), 1);
    if (rand() < 0.3) out.splice(Math.floor(rand() * (out.length + 1)), 0, randomValue(rand));
    // A window moved on: its first items gone, as many new at its end.
    if (rand() < 0.2 && out.length > 0) {
      const d = 1 + Math.floor(rand() * Math.min(5, out.length));
      out.splice(0, d);
      for (let j = 0; j < d; j++) out.push(randomValue(rand));
    }
    return out;
  }
  if (typeof v === 'object' && v !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (rand() > 0.1) Object.defineProperty(out, k, { value: rand() < 0.3 ? mutate(x, rand) : x, enumerable: true, writable: true, configurable: true });
    if (rand() < 0.2) out.added = randomValue(rand);
    return out;
  }
  return rand() < 0.5 ? v : randomValue(rand);
}

test('applied to the state before, a patch gives the next state as JSON sees it, and leaves the one before as it was', () => {
  const rand = uniform(7);
  for (let i = 0; i < 3000; i++) {
    const prev = viaJson(randomValue(rand));
    const next = mutate(prev, rand);
    const prevCopy = JSON.stringify(prev);
    // What the page has is the JSON of what was sent; the patch goes through JSON too.
    const patch = diffJson(prev, next);
    const got = patch === undefined ? prev : applyPatch(prev, viaJson(patch) as never);
    assert.equal(JSON.stringify(got), JSON.stringify(next), `case ${i}`);
    assert.equal(JSON.stringify(prev), prevCopy, `case ${i}: the state before was modified`);
    assert.equal(patch === undefined, sameJson(prev, next));
  }
});

test("keys are data: '__proto__' and 'constructor' are patched as keys, not as the object's prototype", () => {
  const prev = viaJson(JSON.parse('{"q":{"__proto__":{"n":1},"constructor":2}}'));
  const next = JSON.parse('{"q":{"__proto__":{"n":3},"constructor":2,"toString":4}}');
  const got = applyPatch(prev, viaJson(diffJson(prev, next)) as never) as { q: Record<string, unknown> };
  assert.equal(JSON.stringify(got), JSON.stringify(next));
  assert.equal(Object.getPrototypeOf(got.q), Object.prototype);
  assert.equal(({} as { n?: number }).n, undefined, 'no prototype was polluted');
});

test('a row gone from a 200-row list, or one figure changed among 300, is a patch of a few bytes', () => {
  const rows = Array.from({ length: 200 }, (_, i) => ({ queryId: `q${i}`, docId: `d${i}`, title: `a title of document ${i}`, score: i / 7 }));
  const gone = { rows: rows.filter((_, i) => i !== 57), total: 199 };
  const p1 = diffJson({ rows, total: 200 }, gone);
  assert.ok(JSON.stringify(p1).length < 100, JSON.stringify(p1));
  const deltas = Array.from({ length: 300 }, (_, i) => Math.sin(i));
  const moved = deltas.map((d, i) => (i === 123 ? d + 0.01 : d));
  const p2 = diffJson({ deltas }, { deltas: moved });
  assert.ok(JSON.stringify(p2).length < 60, JSON.stringify(p2));
  assert.deepEqual(applyPatch({ deltas }, p2!), { deltas: moved });
});

test('the Judge sidebar\'s pairs ahead moved on by a judgement (or a few) send only the new pairs, not the window again', () => {
  const pair = (i: number) => ({ queryId: `q${i}`, docId: `d${i}`, title: `title ${i}`, text: `text of document ${i} `.repeat(70) });
  const window = (from: number) => Array.from({ length: 16 }, (_, i) => pair(from + i));
  for (const d of [1, 2, 4]) {
    const prev = { item: pair(0), ahead: window(1) };
    const next = { item: pair(d), ahead: window(1 + d) };
    const patch = diffJson(prev, next)!;
    const bytes = JSON.stringify(patch).length;
    assert.ok(bytes < (d + 1) * 1600, `moved on by ${d}: ${bytes} bytes (the window is ${JSON.stringify(next.ahead).length})`);
    assert.deepEqual(applyPatch(viaJson(prev), viaJson(patch) as never), next);
  }
});

test('undefined is absent and NaN is null, as in JSON: no patch where JSON sees no change', () => {
  assert.equal(diffJson({ a: 1, b: undefined }, { a: 1 }), undefined);
  assert.equal(diffJson({ a: NaN }, { a: Infinity }), undefined);
  assert.deepEqual(diffJson({ a: 1 }, { a: 1, b: 2 }), { k: { b: { s: 2 } } });
  assert.deepEqual(diffJson({ a: 1, b: 2 }, { a: 1 }), { d: ['b'] });
});
