// Lint fixture: the command line runs without VS Code; vscode and src/host imports must be reported.
import * as vscode from 'vscode';
import { start } from '../host/main';
import { Agent } from '../core/engine/agent';
export const all: unknown[] = [vscode, start, Agent];
