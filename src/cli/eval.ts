import { UsageError, type Command } from './common';

export const evalCommand: Command = {
  summary: 'evaluate a TREC run against qrels, printing exactly what trec_eval prints',
  async run() {
    throw new UsageError('eval is being written');
  },
};
