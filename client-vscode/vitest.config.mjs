import { defineConfig } from 'vitest/config';

// Unit tests cover the pure modules (no `vscode` import); the real editor is exercised
// by the end-to-end test in test/e2e.
export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts'],
    environment: 'node',
    testTimeout: 10_000,
  },
});
