import { stopSharedWorkbench } from './workbench';

// The UI tier's one workbench (support/workbench.ts) outlives each file: it stops after the last.
export const mochaHooks = {
  async afterAll(): Promise<void> {
    await stopSharedWorkbench();
  },
};
