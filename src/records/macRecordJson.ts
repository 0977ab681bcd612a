/**
 * The MAC record (SPEC 2.5) as JSON text for the single-lookup hot path: the same text as
 * `JSON.stringify(macRecord(answer, level))`, made from a template per matched block (the engine
 * hands out one frozen block object per table row), level and virtualisation platform. The parts
 * that come from the input (the echo, OUI, normalized form and the I/G and U/L bits) fill its holes.
 */
import type { MacAnswer } from '../engine/answers.js';
import type { FieldLevel } from './ipRecord.js';
import { JsonTemplate } from './jsonTemplate.js';
import { macRecord } from './macRecord.js';

const HOLES = ['mac', 'oui', 'normalized', 'is_multicast', 'is_local', 'is_randomized'] as const;

export class MacRecordRenderer {
  /** templates of found answers, by block object, then by level and platform */
  private readonly byBlock = new WeakMap<object, Map<string, JsonTemplate>>();
  /** templates of answers without a registered block, by level and platform */
  private readonly unregistered = new Map<string, JsonTemplate>();

  render(answer: MacAnswer, level: FieldLevel): string {
    return this.templateOf(answer, level).render([
      JSON.stringify(answer.mac),
      JSON.stringify(answer.oui),
      JSON.stringify(answer.normalized),
      String(answer.is_multicast),
      String(answer.is_local),
      String(answer.is_randomized),
    ]);
  }

  private templateOf(answer: MacAnswer, level: FieldLevel): JsonTemplate {
    let templates = this.unregistered;
    if (answer.found && answer.block) {
      templates = this.byBlock.get(answer.block) ?? new Map();
      this.byBlock.set(answer.block, templates);
    }
    const key = `${level} ${answer.vm_platform ?? ''}`;
    let template = templates.get(key);
    if (template === undefined) {
      template = JsonTemplate.compile(macRecord(answer, level), HOLES);
      templates.set(key, template);
    }
    return template;
  }
}
