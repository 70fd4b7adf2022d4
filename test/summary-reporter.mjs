// A node:test reporter that ends a suite with one line, `<name>: N passed, N failed, N skipped` (the name from
// IRW_SUITE), counting tests and not the describe() blocks that group them, as the spec reporter's totals do,
// except where the block itself is the result: one skipped (its data is missing: the spec reporter shows why)
// counts as one skipped, one whose body threw before its tests could run as one failed.
export default async function* summary(source) {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for await (const event of source) {
    const suite = event.data?.details?.type === 'suite';
    if (event.type === 'test:pass' && (event.data.skip || event.data.todo)) skipped++;
    else if (event.type === 'test:fail' && !(suite && event.data.details.error?.failureType === 'subtestsFailed')) failed++;
    else if (event.type === 'test:pass' && !suite) passed++;
  }
  yield `${process.env.IRW_SUITE ?? 'tests'}: ${passed} passed, ${failed} failed, ${skipped} skipped\n`;
}
