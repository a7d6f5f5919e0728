import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { serviceBoundaries } from './eslint/service-boundaries.rule.js';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'scripts/**/*.mjs', '.runtime/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['services/**/*.ts', 'test/e2e/**/*.ts'],
    plugins: { local: { rules: { 'service-boundaries': serviceBoundaries } } },
    rules: { 'local/service-boundaries': 'error' },
  },
  {
    files: ['eslint/**/*.js'],
    languageOptions: { globals: { URL: 'readonly' } },
  },
);
