import { basename } from 'node:path';
import * as vscode from 'vscode';
import { snippet } from '../../core/formats/text';
import { parseQrelsLine, qrelsFileSplit } from '../../core/judgements/qrelsLine';
import type { EngineClient } from '../../core/engine/client';
import type { QrelsLineInfo, UserJudgement } from '../../core/index/qrelsInfo';
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

const gradeText = (g: number) => (g < 0 ? 'unjudged (−1)' : String(g));

/**
 * The grade picker's items: each grade of the scale with its label from irWorkbench.judging.gradeLabels (per
 * dataset folder name, "*" for any other), the one in effect marked; after a judgement of yours, "Revert to
 * original" records the original grade again (unjudged, −1, for a pair the original qrels do not hold).
 */
export function gradeItems(info: Pick<QrelsLineInfo, 'scale' | 'original' | 'yours'>, dataset: string): (vscode.QuickPickItem & { grade: number })[] {
  const all = vscode.workspace.getConfiguration('irWorkbench').get<Record<string, Record<string, string>>>('judging.gradeLabels', {});
  const labels = all[dataset] ?? all['*'] ?? {};
  const current = info.yours ?? info.original;
  const scale = [...new Set([...info.scale, ...(current !== null && current >= 0 ? [current] : [])])].sort((a, b) => a - b);
  const items: (vscode.QuickPickItem & { grade: number })[] = scale.map((g) => ({
    label: labels[String(g)] ? `${g} ${labels[String(g)]}` : String(g),
    description: g === current ? `current (${info.yours !== null ? 'yours' : 'original'})` : undefined,
    grade: g,
  }));
  if (info.yours !== null && info.yours !== (info.original ?? -1)) {
    const was = info.original ?? -1;
    items.push({ label: '$(discard) Revert to original', description: info.original === null ? 'unjudged: not in the original qrels' : `original ${gradeText(was)}${labels[String(was)] ? ` ${labels[String(was)]}` : ''}`, grade: was });
  }
  return items;
}

/** An overridden line of an original qrels file: the user's grade, shown after the line as Source Control marks a changed line. */
export interface Override {
  line: number;
  text: string;
}

/** The lines of an original qrels file the user's judgements override, with "yours: 2 (was 1)". */
export function overrides(lines: readonly string[], judgements: readonly UserJudgement[]): Override[] {
  const byPair = new Map(judgements.map((j) => [`${j.queryId}\t${j.docId}`, j]));
  const out: Override[] = [];
  if (byPair.size === 0) return out;
  lines.forEach((text, line) => {
    const j = parseQrelsLine(text);
    const yours = j && byPair.get(`${j.queryId}\t${j.docId}`);
    if (yours) out.push({ line, text: `yours: ${gradeText(yours.grade)}${yours.grade === j.grade ? '' : ` (was ${gradeText(j.grade)})`}` });
  });
  return out;
}

/** The hover of a judgement line: query, document title, and the grade in effect with its origin. */
export function hoverMarkdown(j: { queryId: string; docId: string; grade: number }, info: QrelsLineInfo, args: ChangeGradeArgs): vscode.MarkdownString {
  const md = new vscode.MarkdownString(undefined, true);
  md.isTrusted = { enabledCommands: ['irWorkbench.changeGrade'] };
  // appendText escapes: query and document text are untrusted input.
  md.appendMarkdown('**Query** ').appendText(`${j.queryId}: ${info.query ?? '(not in queries.jsonl)'}`).appendMarkdown('\n\n');
  md.appendMarkdown('**Document** ').appendText(`${j.docId}: ${info.title === null ? '(not in corpus.jsonl)' : info.title || '(no title)'}`).appendMarkdown('\n\n');
  if (info.yours !== null) {
    const when = info.at ? `, judged ${new Date(info.at).toLocaleString(vscode.env.language)}` : '';
    const original = info.original === null ? 'not in the original qrels' : `original ${gradeText(info.original)}`;
    md.appendMarkdown(`**Grade** ${gradeText(info.yours)}: yours${when} (${original}) `);
  } else {
    md.appendMarkdown(`**Grade** ${gradeText(info.original ?? j.grade)}: original `);
  }
  md.appendMarkdown(`[Change grade](command:irWorkbench.changeGrade?${encodeURIComponent(JSON.stringify([args]))})`);
  return md;
}

/**
 * In an open qrels .tsv (a split's qrels or the user's annotations): a hover and a CodeLens per judgement line
 * with the query text and the document title, the grade in effect and its origin (original, or yours and
 * when), "change grade", which records a judgement through the store (the original qrels file is never
 * written), and, in a split's original qrels, the lines the user's judgements override marked.
 */
export function registerQrelsEditor(context: vscode.ExtensionContext, wb: AnalysisWorkbench): void {
  // The engine the editor asks (line info, the user's judgements); without one (no folder) it shows nothing.
  const store: Promise<EngineClient> | undefined = wb.engineIfAny();
  const describe = async (doc: vscode.TextDocument, line: number) => {
    const where = qrelsFileSplit(doc.uri.fsPath);
    const j = parseQrelsLine(doc.lineAt(line).text);
    if (!where || !j || !store) return undefined;
    const args: ChangeGradeArgs = { ...where, queryId: j.queryId, docId: j.docId };
    const info = await (await store).request('qrelsLineInfo', args);
    return { j, info, args };
  };

  const marked = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    borderWidth: '0 0 0 2px',
    borderStyle: 'solid',
    borderColor: new vscode.ThemeColor('editorGutter.modifiedBackground'),
    overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.modifiedForeground'),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
    after: { margin: '0 0 0 2em', color: new vscode.ThemeColor('gitDecoration.modifiedResourceForeground') },
  });
  const decorate = async (editor: vscode.TextEditor) => {
    const path = editor.document.uri.fsPath;
    const where = qrelsFileSplit(path);
    if (!where || path.endsWith('.annotations.tsv') || !store) return;
    const judgements = await (await store).request('splitJudgements', where);
    const lines = Array.from({ length: editor.document.lineCount }, (_, i) => editor.document.lineAt(i).text);
    editor.setDecorations(
      marked,
      overrides(lines, judgements).map((o) => ({
        range: editor.document.lineAt(o.line).range,
        hoverMessage: new vscode.MarkdownString().appendText(`Your judgement overrides this line (qrels/${where.split}.annotations.tsv); the file itself is unchanged.`),
        renderOptions: { after: { contentText: o.text } },
      })),
    );
  };
  const decorateAll = () => {
    for (const e of vscode.window.visibleTextEditors) void decorate(e).catch(() => undefined);
  };
  let changedTimer: NodeJS.Timeout | undefined;
  context.subscriptions.push(
    marked,
    vscode.window.onDidChangeVisibleTextEditors(decorateAll),
    vscode.workspace.onDidChangeTextDocument((e) => {
      if (!vscode.window.visibleTextEditors.some((v) => v.document === e.document)) return;
      clearTimeout(changedTimer);
      changedTimer = setTimeout(decorateAll, 300);
    }),
  );
  // Judgements made anywhere (the sidebar, a panel, another window) reach the store, which says so.
  if (store) void store.then((c) => context.subscriptions.push(c.onChanged(decorateAll)), () => undefined);
  decorateAll();

  context.subscriptions.push(
    vscode.languages.registerHoverProvider(SELECTOR, {
      async provideHover(doc, pos) {
        const d = await describe(doc, pos.line);
        return d ? new vscode.Hover(hoverMarkdown(d.j, d.info, d.args), doc.lineAt(pos.line).range) : undefined;
      },
    }),
    vscode.languages.registerCodeLensProvider(SELECTOR, {
      provideCodeLenses(doc) {
        if (!qrelsFileSplit(doc.uri.fsPath) || doc.lineCount > MAX_LENS_LINES) return [];
        const lenses: QrelsLens[] = [];
        for (let i = 0; i < doc.lineCount; i++) if (parseQrelsLine(doc.lineAt(i).text)) lenses.push(new QrelsLens(doc.lineAt(i).range, doc));
        return lenses;
      },
      // Resolved only for the lines on screen: the store reads the corpus by offset per visible line.
      async resolveCodeLens(lens: vscode.CodeLens) {
        const d = lens instanceof QrelsLens ? await describe(lens.doc, lens.range.start.line) : undefined;
        if (!d) return lens;
        const short = (s: string | null, n: number) => (s === null ? '?' : s.length > n ? `${s.slice(0, n - 1)}…` : s);
        lens.command = {
          title: `${short(d.info.query, 60)} · ${short(d.info.title, 60)} · change grade`,
          tooltip: `query ${d.j.queryId}: ${snippet(d.info.query ?? '', 300)}\ndocument ${d.j.docId}: ${d.info.title ?? ''}`,
          command: 'irWorkbench.changeGrade',
          arguments: [d.args],
        };
        return lens;
      },
    }),
    vscode.commands.registerCommand('irWorkbench.changeGrade', async (args: ChangeGradeArgs) => {
      let grade = args.grade;
      if (grade === undefined) {
        if (!store) throw new Error('the workspace store is not running, so judgements cannot be saved');
        const info = await (await store).request('qrelsLineInfo', args);
        grade = (await vscode.window.showQuickPick(gradeItems(info, basename(args.datasetDir)), {
          title: `Grade of document ${args.docId} for query ${args.queryId}`,
          placeHolder: 'recorded in the split\'s annotations (the qrels file is not changed)',
        }))?.grade;
      }
      if (grade === undefined) return undefined;
      // Through the workbench, which records it in the store and updates the split's open views.
      await wb.judge(await wb.open(args.datasetDir, args.split), args.queryId, args.docId, grade);
      decorateAll();
      return grade;
    }),
  );
}
