// What the end-to-end tests share: Debian's headless chromium (no browser
// download), named checks that record failures and go on, and the summary.
import { chromium } from 'playwright-core';

export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
}

export class Checks {
  constructor() {
    this.passed = 0;
    this.failures = [];
  }

  // Runs one named check; a failure is recorded and the next check runs.
  async check(name, fn) {
    try {
      await fn();
      this.passed += 1;
      console.log(`ok   ${name}`);
    } catch (e) {
      this.failures.push(`${name}: ${e.message}`);
      console.log(`FAIL ${name}: ${e.message}`);
    }
  }

  // Prints the summary; exits 1 when anything failed.
  finish(label) {
    console.log(`\n${label}: ${this.passed} passed, ${this.failures.length} failed`);
    if (this.failures.length) {
      for (const f of this.failures) console.log(`  ${f}`);
      process.exit(1);
    }
  }
}
