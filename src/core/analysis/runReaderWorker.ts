// Worker-thread entry (dist/run-reader.js): reads and scores one run file, answers once, exits.
import { parentPort, workerData } from 'node:worker_threads';
import { readAndScore, type ReadRequest } from './runReader';

const { reply, transfer } = readAndScore(workerData as ReadRequest);
parentPort!.postMessage(reply, transfer);
