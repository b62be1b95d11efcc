// A cycle made only of type imports: invisible to import-x/no-cycle, caught by tasklane-cycles.
import type { B } from './typeCycleB';

export interface A {
  b?: B;
}
