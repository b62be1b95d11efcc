// Lint fixture: the first two imports must be reported; the last two are allowed.
import { z } from '../core/engine';
import * as fs from 'node:fs';
import type { Proto } from '../shared/protocol';
import '@vscode-elements/elements';
export const all: unknown[] = [z, fs, {} as Proto];
