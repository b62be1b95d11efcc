// Lint fixture: the first four imports must be reported; the last two are allowed.
import * as vscode from 'vscode';
import { x } from '../core/engine';
import { y } from '../webview/main';
import * as fs from 'node:fs';
import { z } from 'zod';
import type { Proto } from './protocol';
export const all: unknown[] = [vscode, x, y, fs, z, {} as Proto];
