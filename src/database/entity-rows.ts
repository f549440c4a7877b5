import { getMetadataArgsStorage } from 'typeorm';

/** A row as the driver gives it: values by column name. */
export type Row = Record<string, unknown>;

interface ColumnOf {
  readonly property: string;
  readonly column: string;
  /** A timestamp column: text (a JSON snapshot's) becomes a `Date`. */
  readonly instant: boolean;
  readonly selected: boolean;
}

/** The columns `target`'s TypeORM decorators declare (`name`, else the property's name), in declaration order. */
function columnsOf(target: new () => object): readonly ColumnOf[] {
  return getMetadataArgsStorage()
    .filterColumns(target)
    .map(({ propertyName, mode, options }) => ({
      property: propertyName,
      column: options.name ?? propertyName,
      instant: mode === 'createDate' || mode === 'updateDate' || String(options.type).startsWith('timestamp'),
      selected: options.select !== false,
    }));
}

/**
 * The mapper of rows to entities of `target`, from its column decorators: every column's value from the row by its
 * name (a timestamp given as text becomes a `Date`), nothing else. Make it once, beside the repository's statements.
 */
export function rowMapper<T extends object>(target: new () => T): (row: Row) => T {
  const columns = columnsOf(target);
  return (row) => {
    const entity = new target() as Record<string, unknown>;
    for (const { property, column, instant } of columns) {
      const value = row[column];
      entity[property] = instant && typeof value === 'string' ? new Date(value) : value;
    }
    return entity as T;
  };
}

/** SQL: the columns of `target` that a plain read selects (not `select: false`), of the row `alias`: `c."id", …`. */
export function selectedColumns(target: new () => object, alias: string): string {
  return columnsOf(target)
    .filter(({ selected }) => selected)
    .map(({ column }) => `${alias}."${column}"`)
    .join(', ');
}
