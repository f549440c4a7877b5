import { getMetadataStorage, ValidationArguments, ValidationError, ValidationTypes } from 'class-validator';

/** class-validator's start of a built-in rule's default message under `each` ("each value in tags must be …"). */
const EACH_PREFIX = 'each value in ';

/** One message of a broken rule: of the property itself, or of its array item `index`. */
export interface ItemMessage {
  readonly index?: string;
  readonly message: string;
}

/**
 * The messages of `error`'s own rules, a rule with `each` on an array split into one per item that breaks it, worded
 * for `property[index]`. Needs `error.target` and `error.value`; without them, or with no failing item, as class-validator gave them.
 */
export function itemMessages(error: ValidationError): ItemMessage[] {
  const constraints = Object.entries(error.constraints ?? {});
  const { target, property } = error;
  const value: unknown = error.value;
  if (!target || !(Array.isArray(value) || value instanceof Set || value instanceof Map)) {
    return constraints.map(([, message]) => ({ message }));
  }
  const items: unknown[] = value instanceof Map ? [...value.values()] : [...value];
  const storage = getMetadataStorage();
  const rules = storage
    .getTargetValidationMetadatas(target.constructor, '', true, false)
    .filter((rule) => rule.each && rule.propertyName === property && rule.type === ValidationTypes.CUSTOM_VALIDATION);
  return constraints.flatMap(([type, message]) => {
    for (const rule of rules) {
      const constraint = storage.getTargetValidatorConstraints(rule.constraintCls).find((c) => c.name === type);
      if (!constraint) continue;
      const argsOf = (item: unknown, index: number): ValidationArguments => ({
        targetName: target.constructor.name,
        property: `${property}[${index}]`,
        object: target,
        value: item,
        constraints: rule.constraints as unknown[],
      });
      const failing = items.flatMap((item, i) =>
        constraint.instance.validate(item, argsOf(item, i)) === false ? [i] : [],
      );
      if (failing.length === 0) break;
      return failing.map((i) => {
        const args = argsOf(items[i], i);
        const template =
          typeof rule.message === 'function'
            ? rule.message(args)
            : (rule.message ?? constraint.instance.defaultMessage?.(args) ?? '');
        return {
          index: String(i),
          message: withTokens(template.startsWith(EACH_PREFIX) ? template.slice(EACH_PREFIX.length) : template, args),
        };
      });
    }
    return [{ message }];
  });
}

/** `template` with class-validator's message tokens (`$property`, `$value`, `$target`, `$constraintN`) filled in. */
function withTokens(template: string, args: ValidationArguments): string {
  return template
    .replace(/\$constraint(\d+)/g, (token, n: string) => String(args.constraints[Number(n) - 1] ?? token))
    .replace(/\$value/g, String(args.value))
    .replace(/\$property/g, args.property)
    .replace(/\$target/g, args.targetName);
}
