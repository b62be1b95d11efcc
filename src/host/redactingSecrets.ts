import type * as vscode from 'vscode';
import type { Redactor } from '../core/security/redact';

/**
 * SecretStorage that tells the Redactor every value read or stored through it (API keys, chore
 * secrets), so those values are removed wherever they would be written down: event streams,
 * EVENT.md, chore traces, escalation payloads. The secrets themselves stay in SecretStorage.
 */
export function redactingSecrets(inner: vscode.SecretStorage, redactor: Redactor): vscode.SecretStorage {
  return {
    get: async (key) => {
      const value = await inner.get(key);
      redactor.addSecret(value);
      return value;
    },
    store: async (key, value) => {
      redactor.addSecret(value);
      await inner.store(key, value);
    },
    delete: (key) => inner.delete(key),
    keys: () => inner.keys(),
    onDidChange: inner.onDidChange,
  };
}
