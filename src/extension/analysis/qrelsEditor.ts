import * as vscode from 'vscode';
import { snippet } from '../../core/analysis/text';
import { parseQrelsLine, qrelsFileSplit } from '../../core/analysis/qrelsLine';
import type { AnalysisWorkbench } from './workbench';

export interface ChangeGradeArgs {
  datasetDir: string;
  split: string;
  queryId: string;
  docId: string;
  /** Given: no pick (keybindings, tests). */
  grade?: number;
}

/** CodeLenses past this many lines would crowd the editor and cost more than they help; the hover stays. */
const MAX_LENS_LINES = 5000;
const SELECTOR: vscode.DocumentSelector = [{ scheme: 'file', pattern: '**/qrels/*.tsv' }];

/** A lens that knows its document, so it can be resolved when it scrolls into view. */
class QrelsLens extends vscode.CodeLens {
  constructor(
    range: vscode.Range,
    readonly doc: vscode.TextDocument,
  ) {
    super(range);
  }
}

/**
 * In an open qrels .tsv (a split's qrels or the user's annotations): a hover and a CodeLens per judgement line
 * with the query text and the document title, and "change grade", which records a judgement through the
 * store (the original qrels file is never written).
 */
export function registerQrelsEditor(context: vscode.ExtensionContext, wb: AnalysisWorkbench): void {
  const describe = async (doc: vscode.TextDocument, line: number) => {
    const where = qrelsFileSplit(doc.uri.fsPath);
    const j = parseQrelsLine(doc.lineAt(line).text);
    if (!where || !j) return undefined;
    const split = await wb.open(where.datasetDir, where.split, [], { reindex: false });
    const pair = await wb.ask('pair', { key: split.key, queryId: j.queryId, docId: j.docId });
    const query = pair.found.query ? pair.item?.queryText : undefined;
    const title = pair.found.doc ? pair.item?.title : undefined;
    const args: ChangeGradeArgs = { ...where, queryId: j.queryId, docId: j.docId };
    return { j, query, title, args };
  };
  context.subscriptions.push(
    vscode.languages.registerHoverProvider(SELECTOR, {
      async provideHover(doc, pos) {
        const d = await describe(doc, pos.line);
        if (!d) return undefined;
        const md = new vscode.MarkdownString(undefined, true);
        md.isTrusted = { enabledCommands: ['irWorkbench.changeGrade'] };
        // appendText escapes: query and document text are untrusted input.
        md.appendMarkdown('**Query** ').appendText(`${d.j.queryId}: ${d.query ?? '(not in queries.jsonl)'}`).appendMarkdown('\n\n');
        md.appendMarkdown('**Document** ').appendText(`${d.j.docId}: ${d.title === undefined ? '(not in corpus.jsonl)' : d.title || '(no title)'}`).appendMarkdown('\n\n');
        md.appendText(`grade ${d.j.grade} `);
        md.appendMarkdown(`[Change grade](command:irWorkbench.changeGrade?${encodeURIComponent(JSON.stringify([d.args]))})`);
        return new vscode.Hover(md, doc.lineAt(pos.line).range);
      },
    }),
    vscode.languages.registerCodeLensProvider(SELECTOR, {
      provideCodeLenses(doc) {
        if (!qrelsFileSplit(doc.uri.fsPath) || doc.lineCount > MAX_LENS_LINES) return [];
        const lenses: QrelsLens[] = [];
        for (let i = 0; i < doc.lineCount; i++) if (parseQrelsLine(doc.lineAt(i).text)) lenses.push(new QrelsLens(doc.lineAt(i).range, doc));
        return lenses;
      },
      // Resolved only for the lines on screen: the corpus is read by offset per visible line.
      async resolveCodeLens(lens: vscode.CodeLens) {
        const d = lens instanceof QrelsLens ? await describe(lens.doc, lens.range.start.line) : undefined;
        if (!d) return lens;
        const short = (s: string | undefined, n: number) => (s === undefined ? '?' : s.length > n ? `${s.slice(0, n - 1)}…` : s);
        lens.command = {
          title: `${short(d.query, 60)} · ${short(d.title, 60)} · change grade`,
          tooltip: `query ${d.j.queryId}: ${snippet(d.query ?? '', 300)}\ndocument ${d.j.docId}: ${d.title ?? ''}`,
          command: 'irWorkbench.changeGrade',
          arguments: [d.args],
        };
        return lens;
      },
    }),
    vscode.commands.registerCommand('irWorkbench.changeGrade', async (args: ChangeGradeArgs) => {
      const split = await wb.open(args.datasetDir, args.split, [], { reindex: false });
      const scale = split.grades;
      const current = (await wb.ask('pair', { key: split.key, queryId: args.queryId, docId: args.docId })).item?.grade ?? null;
      const grade =
        args.grade ??
        (
          await vscode.window.showQuickPick(
            scale.map((g) => ({ label: String(g), description: g === current ? 'current' : undefined, grade: g })),
            { title: `Grade of document ${args.docId} for query ${args.queryId}`, placeHolder: 'recorded in the split\'s annotations (the qrels file is not changed)' },
          )
        )?.grade;
      if (grade === undefined) return undefined;
      await wb.judge(split, args.queryId, args.docId, grade);
      return grade;
    }),
  );
}
