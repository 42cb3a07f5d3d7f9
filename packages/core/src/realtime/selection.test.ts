import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors/validation-error.js';
import { resolveSelection } from './selection.js';

describe('resolveSelection', () => {
  it('accepts one id, a list of distinct ids, or all', () => {
    expect(resolveSelection(7)).toEqual([7]);
    expect(resolveSelection([3, 1, 2])).toEqual([3, 1, 2]);
    expect(resolveSelection('all')).toBe('all');
  });

  it.each([
    [0, 'selection[0]'],
    [-3, 'selection[0]'],
    [1.5, 'selection[0]'],
    [Number.MAX_SAFE_INTEGER + 2, 'selection[0]'],
    [[], 'selection'],
    [[1, 2, 1], 'selection'],
    [[1, 0], 'selection[1]'],
    ['1', 'selection'],
    ['ALL', 'selection'],
    [null, 'selection'],
    [[1, '2'], 'selection'],
  ])('refuses %j naming %s', (value, parameter) => {
    let caught: unknown;
    try {
      resolveSelection(value);
    } catch (error) {
      caught = error;
    }
    expect(ValidationError.isInstance(caught)).toBe(true);
    expect((caught as ValidationError).parameter).toBe(parameter);
    expect((caught as ValidationError).message).toMatch(/positive whole number/);
  });

  it('says which id repeats', () => {
    expect(() => resolveSelection([4, 4])).toThrow(/4 more than once/);
  });
});
