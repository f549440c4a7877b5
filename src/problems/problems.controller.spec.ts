import { NotFoundException } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { PROBLEM_TYPES } from '../common/filters/problem-types';
import { ProblemsController } from './problems.controller';

describe('ProblemsController', () => {
  let controller: ProblemsController;

  beforeEach(async () => {
    const module = await Test.createTestingModule({ controllers: [ProblemsController] }).compile();
    controller = module.get(ProblemsController);
  });

  it.each(Object.entries(PROBLEM_TYPES))('serves the page of %s', (name, type) => {
    const page = controller.page(name);

    expect(page).toContain(`<h1>${type.title}</h1>`);
    expect(page).toContain(`<code>${name}</code>, answered with HTTP status ${type.status}`);
    expect(page).toContain('<h2>What to do</h2>');
    expect(page).not.toContain('`');
  });

  it.each(Object.keys(PROBLEM_TYPES).map((name) => [name.toUpperCase(), name]))(
    'serves %s in any letter case as the page of %s',
    (sent, name) => {
      expect(controller.page(sent)).toBe(controller.page(name));
    },
  );

  it.each(['teapot', 'constructor', '__proto__', 'toString'])('answers %p with 404', (name) => {
    expect(() => controller.page(name)).toThrow(NotFoundException);
  });
});
