import type { A } from './typeCycleA';

export interface B {
  a?: A;
}
