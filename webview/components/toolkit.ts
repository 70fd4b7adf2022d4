/**
 * The only module that touches @vscode/webview-ui-toolkit (archived upstream): views build controls through
 * these functions, so moving to @vscode-elements/elements changes this folder only.
 */
import {
  provideVSCodeDesignSystem,
  vsCodeBadge,
  vsCodeButton,
  vsCodeCheckbox,
  vsCodeDivider,
  vsCodeDropdown,
  vsCodeOption,
} from '@vscode/webview-ui-toolkit';

let registered = false;
function register(): void {
  if (registered) return;
  provideVSCodeDesignSystem().register(vsCodeButton(), vsCodeDropdown(), vsCodeOption(), vsCodeCheckbox(), vsCodeBadge(), vsCodeDivider());
  registered = true;
}

export function button(label: string, onClick: () => void, opts: { secondary?: boolean; title?: string; id?: string } = {}): HTMLElement {
  register();
  const b = document.createElement('vscode-button');
  b.textContent = label;
  if (opts.secondary) b.setAttribute('appearance', 'secondary');
  if (opts.title) b.title = opts.title;
  if (opts.id) b.id = opts.id;
  b.addEventListener('click', onClick);
  return b;
}

export function dropdown(options: { value: string; label: string }[], selected: string, onChange: (value: string) => void, title?: string): HTMLElement {
  register();
  const d = document.createElement('vscode-dropdown') as HTMLElement & { value: string };
  if (title) d.title = title;
  for (const o of options) {
    const opt = document.createElement('vscode-option');
    opt.setAttribute('value', o.value);
    opt.textContent = o.label;
    if (o.value === selected) opt.setAttribute('selected', '');
    d.appendChild(opt);
  }
  d.addEventListener('change', () => onChange(d.value));
  return d;
}

export function checkbox(label: string, checked: boolean, onChange: (checked: boolean) => void): HTMLElement {
  register();
  const c = document.createElement('vscode-checkbox') as HTMLElement & { checked: boolean };
  c.textContent = label;
  if (checked) c.setAttribute('checked', '');
  c.addEventListener('change', () => onChange(c.checked));
  return c;
}

export function badge(text: string): HTMLElement {
  register();
  const b = document.createElement('vscode-badge');
  b.textContent = text;
  return b;
}

export function divider(): HTMLElement {
  register();
  return document.createElement('vscode-divider');
}
