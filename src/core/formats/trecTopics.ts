import { LineGuard, type BeirQuery, type ReadOptions } from './beir';
import { forEachLineSync } from './lines';
import { InputError } from './errors';

/**
 * TREC topic files, read as queries (the title is the query, as the ad hoc "title" runs use it):
 * - SGML, as TREC 1-8, Robust04 and the Web tracks: `<top> <num> Number: 301 <title> ... <desc> Description: ...
 *   <narr> Narrative: ... </top>` (closing tags optional, the `Number:`/`Topic:` labels optional);
 * - XML, as TREC-COVID and the later tracks: `<topic number="1"> <query>...</query> <question>...</question> </topic>`.
 */
export function readTrecTopics(path: string, options: ReadOptions = {}): Map<string, BeirQuery> {
  const lines: string[] = [];
  forEachLineSync(path, (buf, start, end) => void lines.push(buf.toString('utf8', start, end)));
  const text = lines.join('\n').replace(/^\ufeff/, '');
  const lineAt = lineCounter(text);
  const out = new Map<string, BeirQuery>();
  // A bad topic is skipped and reported like a bad corpus line (the program's one rule), else thrown.
  const guard = new LineGuard(path, options);
  const addTopic = (id: string, query: string, at: number, raw: string) => {
    const line = lineAt(at);
    if (!id || /\s/.test(id)) throw new InputError({ code: 'malformed', message: 'topic without a number', file: path, line, text: raw, hint: 'Each topic needs <num> Number: N (or <topic number="N">).' });
    const first = out.get(id);
    if (first) throw new InputError({ code: 'duplicate', message: `duplicate topic ${JSON.stringify(id)} (first on line ${first.line})`, file: path, line, text: raw, hint: 'Topic numbers must be unique within the file.' });
    const q = query.replace(/\s+/g, ' ').trim();
    if (!q) throw new InputError({ code: 'missing-field', message: `topic ${id} has an empty title`, file: path, line, text: raw, hint: 'Give the topic a <title> (or <query>).' });
    out.set(id, { id, text: q, line });
  };
  const add = (id: string, query: string, at: number, raw: string) => guard.run(() => addTopic(id, query, at, raw));

  for (const m of text.matchAll(/<top>([\s\S]*?)(?=<\/top>|<top>|$)/g)) {
    const body = m[1];
    const num = /<num>\s*(?:Number:|Topic:)?\s*([^\s<]+)/i.exec(body);
    const title = /<title>\s*(?:Topic:)?([\s\S]*?)(?=<\/title>|<desc>|<narr>|<\/top>|<\w+>|$)/i.exec(body);
    add(num?.[1] ?? '', title?.[1] ?? '', m.index, firstLine(m[0]));
  }
  for (const m of text.matchAll(/<topic\b([^>]*)>([\s\S]*?)<\/topic>/g)) {
    const num = /\bnumber\s*=\s*"([^"]*)"/.exec(m[1]);
    const query = /<query>([\s\S]*?)<\/query>/.exec(m[2]) ?? /<title>([\s\S]*?)<\/title>/.exec(m[2]);
    add(num?.[1] ?? '', decodeEntities(query?.[1] ?? ''), m.index, firstLine(m[0]));
  }
  guard.finish();
  if (out.size === 0) {
    throw new InputError({ code: 'unknown-format', message: 'no TREC topics found', file: path, hint: 'A topic file holds <top> <num> ... <title> ... </top> or <topic number="N"><query>...</query></topic> entries.' });
  }
  return out;
}

function decodeEntities(s: string): string {
  return s.replace(/&(lt|gt|quot|apos|amp);/g, (_, e: string) => ({ lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' })[e] ?? _);
}

function firstLine(s: string): string {
  return s.split('\n', 1)[0];
}

/** 1-based line number of a character offset (offsets asked in increasing order are cheap). */
function lineCounter(text: string): (at: number) => number {
  let pos = 0;
  let line = 1;
  return (at) => {
    if (at < pos) {
      pos = 0;
      line = 1;
    }
    for (; pos < at; pos++) if (text.charCodeAt(pos) === 10) line++;
    return line;
  };
}
