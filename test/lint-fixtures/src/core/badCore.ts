// Lint fixture: every import below must be reported by tasklane/layers.
import * as vscode from 'vscode';
import { x } from '../host/adapter';
import { y } from '../webview/main';
export const all = [vscode, x, y];
