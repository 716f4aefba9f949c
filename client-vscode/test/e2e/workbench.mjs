// Drives the VS Code workbench in a browser page: palette, quick input, status bar,
// notifications, webviews. Every wait is bounded; failures say what was awaited.

export const SHORT = 10_000;
export const LONG = 60_000;

function fail(message) {
  throw new Error(message);
}

export class Workbench {
  /** @param {import('playwright-core').Page} page */
  constructor(page) {
    this.page = page;
  }

  async waitReady() {
    await this.page.locator('.monaco-workbench').waitFor({ timeout: LONG });
    await this.page.locator('.statusbar').waitFor({ timeout: LONG });
  }

  /** Runs a palette command by its full title, e.g. "CodeKeep: Find Symbol". */
  async runCommand(title) {
    const input = this.page.locator('.quick-input-widget input.input');
    await this.dismissQuickInput();
    await this.page.keyboard.press('F1');
    await input.waitFor({ state: 'visible', timeout: SHORT });
    await input.fill(`>${title}`);
    const row = this.page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
    await row.waitFor({ timeout: SHORT });
    await this.page.keyboard.press('Enter');
  }

  /** Types into the open input box / quick pick (waiting for its title) and presses Enter. */
  async answer(text, { title, pickText } = {}) {
    const widget = this.page.locator('.quick-input-widget');
    if (title) {
      await widget.locator('.quick-input-title', { hasText: title }).waitFor({ timeout: SHORT });
    }
    const input = widget.locator('input.input');
    await input.waitFor({ state: 'visible', timeout: SHORT });
    await input.fill(text);
    if (pickText) {
      await widget.locator('.quick-input-list .monaco-list-row', { hasText: pickText }).first().waitFor({ timeout: SHORT });
    }
    await this.page.keyboard.press('Enter');
  }

  /**
   * Accepts the quick pick row matching `text` and waits until the pick has closed: the row
   * VS Code focuses first when it matches, else the first row after filtering by `text`.
   * Every wait is on the pick itself (its title, its focused row), never on a fixed delay,
   * so a pick that closes on its own (e.g. losing focus) fails here, naming the pick.
   */
  async acceptPick(text, { title } = {}) {
    const widget = this.page.locator('.quick-input-widget');
    const titled = widget.locator('.quick-input-title', { hasText: title ?? '' });
    const what = `the quick pick${title ? ` "${title}"` : ''}`;
    await titled.waitFor({ timeout: LONG }).catch(() => fail(`${what} did not open`));
    const focused = widget.locator('.quick-input-list .monaco-list-row.focused');
    await focused.first().waitFor({ timeout: SHORT }).catch(() => fail(`${what} shows no rows`));
    if (!(await focused.first().innerText()).includes(text)) {
      await widget.locator('input.input').fill(text);
    }
    await focused.filter({ hasText: text }).first().waitFor({ timeout: SHORT })
      .catch(() => fail(`${what} has no row "${text}" (or closed before it was chosen)`));
    await this.page.keyboard.press('Enter');
    await titled.waitFor({ state: 'hidden', timeout: SHORT }).catch(() => fail(`${what} stayed open after choosing "${text}"`));
  }

  async dismissQuickInput() {
    if (await this.page.locator('.quick-input-widget input.input').isVisible()) {
      await this.page.keyboard.press('Escape');
    }
  }

  /** The status bar entry whose text contains `text` (a string or RegExp). */
  statusItem(text) {
    return this.page.locator('.statusbar-item', { hasText: text }).first();
  }

  async waitForStatus(text, timeout = LONG) {
    const item = this.statusItem(text);
    await item.waitFor({ timeout });
    return item;
  }

  /** "Ln 13, Col 7" of the active editor, as numbers. */
  async cursor() {
    const item = this.page.locator('.statusbar-item', { hasText: /Ln \d+, Col \d+/ }).first();
    await item.waitFor({ timeout: SHORT });
    const match = /Ln (\d+), Col (\d+)/.exec(await item.innerText());
    return { line: Number(match[1]), column: Number(match[2]) };
  }

  async activeTabTitle() {
    const tab = this.page.locator('.tabs-container .tab.active').first();
    await tab.waitFor({ timeout: SHORT });
    return (await tab.innerText()).trim();
  }

  /** A notification toast whose text contains `text`. */
  async waitForNotification(text, timeout = SHORT) {
    const toast = this.page.locator('.notifications-toasts .notification-toast', { hasText: text }).first();
    await toast.waitFor({ timeout });
    return toast;
  }

  /** The frame of a webview whose document has `selector` (webviews are nested iframes). */
  async webviewFrame(selector, timeout = LONG) {
    const deadline = Date.now() + timeout;
    while (Date.now() < deadline) {
      for (const frame of this.page.frames()) {
        try {
          if ((await frame.locator(selector).count()) > 0) {
            return frame;
          }
        } catch {
          // Frames come and go while the webview loads.
        }
      }
      await this.page.waitForTimeout(250);
    }
    throw new Error(`no webview showed ${selector} within ${timeout} ms`);
  }
}
