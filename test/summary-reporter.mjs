// A node:test reporter that ends a suite with one line, `<name>: N passed, N failed` (the name from
// IRW_SUITE), counting tests and not the describe() blocks that group them, as the spec reporter's totals do.
export default async function* summary(source) {
  let passed = 0;
  let failed = 0;
  for await (const event of source) {
    if (event.data?.details?.type === 'suite') continue;
    if (event.type === 'test:pass' && !event.data.skip && !event.data.todo) passed++;
    else if (event.type === 'test:fail') failed++;
  }
  yield `${process.env.IRW_SUITE ?? 'tests'}: ${passed} passed, ${failed} failed\n`;
}
