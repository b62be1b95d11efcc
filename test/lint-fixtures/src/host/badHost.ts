// Lint fixture: the webview import must be reported; the others are allowed in the host.
import * as vscode from 'vscode';
import { render } from '../webview/main';
import type { Proto } from '../shared/protocol';
import { agent } from '../core/engine/agent';
export const all: unknown[] = [vscode, render, {} as Proto, agent];
