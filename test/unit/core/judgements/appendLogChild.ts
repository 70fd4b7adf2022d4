/** Child of appendLog.test.ts: waits for a common start time, then judges 200 pairs into each dataset. */
import { AnnotationWriter } from '../../../../src/core/judgements/annotations';

const [who, start, ...dirs] = process.argv.slice(2);
while (Date.now() < Number(start)) {
  // spin: both children must reach the open at the same moment
}
for (const dir of dirs) {
  const { writer } = AnnotationWriter.open(dir, 'test');
  for (let i = 0; i < 200; i++) writer.judge({ queryId: `${who}-q${i}`, docId: `d${i}`, grade: i % 3 });
  writer.close();
}
