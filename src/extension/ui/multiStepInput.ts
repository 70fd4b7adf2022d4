import * as vscode from 'vscode';

/**
 * One quick input for a flow of several questions, as VS Code's multi-step input sample does: the same title
 * on every step, "k/n" in it, and a Back button from the second step on. The steps are planned from the
 * answers so far (a later step may appear or vanish when an earlier answer changes), so `n` is shown only once
 * no answer to come can change it.
 */
export const BACK = Symbol('back');

export type StepAnswer<T> = T | typeof BACK | undefined;

export interface StepContext {
  title: string;
  step: number;
  /** Undefined while an answer to come can still change the count (VS Code then shows k alone). */
  totalSteps: number | undefined;
  /** Back is offered (every step but the first). */
  back: boolean;
}

export interface PickStep<I extends vscode.QuickPickItem> {
  items: I[];
  placeholder?: string;
  /** The item to highlight, e.g. the answer given before going back. */
  active?: I;
}

/** A quick pick step: the item picked, BACK, or undefined when the user pressed Escape. */
export function pickStep<I extends vscode.QuickPickItem>(ctx: StepContext, s: PickStep<I>): Promise<StepAnswer<I>> {
  const qp = vscode.window.createQuickPick<I>();
  qp.title = ctx.title;
  qp.step = ctx.step;
  qp.totalSteps = ctx.totalSteps;
  qp.placeholder = s.placeholder;
  qp.items = s.items;
  if (s.active) qp.activeItems = [s.active];
  qp.buttons = ctx.back ? [vscode.QuickInputButtons.Back] : [];
  qp.ignoreFocusOut = false;
  return settle(qp, (done) => [
    qp.onDidAccept(() => {
      if (qp.selectedItems[0]) done(qp.selectedItems[0]);
    }),
  ]);
}

/** An input box step: the text accepted (valid), BACK, or undefined on Escape. */
export function inputStep(ctx: StepContext, s: { prompt: string; value: string; validate: (text: string) => string | undefined }): Promise<StepAnswer<string>> {
  const box = vscode.window.createInputBox();
  box.title = ctx.title;
  box.step = ctx.step;
  box.totalSteps = ctx.totalSteps;
  box.prompt = s.prompt;
  box.value = s.value;
  box.buttons = ctx.back ? [vscode.QuickInputButtons.Back] : [];
  return settle(box, (done) => [
    box.onDidChangeValue((t) => (box.validationMessage = s.validate(t))),
    box.onDidAccept(() => {
      const error = s.validate(box.value);
      box.validationMessage = error;
      if (!error) done(box.value);
    }),
  ]);
}

function settle<T>(input: vscode.QuickPick<vscode.QuickPickItem> | vscode.InputBox, listen: (done: (v: StepAnswer<T>) => void) => vscode.Disposable[]): Promise<StepAnswer<T>> {
  return new Promise((resolve) => {
    let settled = false;
    const subs: vscode.Disposable[] = [];
    const done = (v: StepAnswer<T>) => {
      if (settled) return;
      settled = true;
      for (const d of subs) d.dispose();
      input.dispose();
      resolve(v);
    };
    subs.push(
      ...listen(done),
      input.onDidTriggerButton((b) => {
        if (b === vscode.QuickInputButtons.Back) done(BACK);
      }),
      input.onDidHide(() => done(undefined)),
    );
    input.show();
  });
}

/**
 * Runs a flow: `plan(state)` lists the steps still to ask given the answers so far, and whether that list is
 * final (no answer to come adds or drops a step), `ask(step, ctx)` asks one and stores its answer in the state
 * (returning false on Escape, BACK to go back). The count is shown only once final: "3/3" followed by "4/4"
 * would say the flow was over when it was not. Returns whether the flow completed.
 */
export async function runSteps<Step>(
  title: string,
  plan: () => { steps: Step[]; final: boolean },
  ask: (step: Step, ctx: StepContext) => Promise<boolean | typeof BACK>,
): Promise<boolean> {
  let i = 0;
  for (;;) {
    const { steps, final } = plan();
    if (i >= steps.length) return true;
    const r = await ask(steps[i], { title, step: i + 1, totalSteps: final ? steps.length : undefined, back: i > 0 });
    if (r === BACK) i = Math.max(0, i - 1);
    else if (!r) return false;
    else i++;
  }
}
