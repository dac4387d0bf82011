/**
 * The metric names a PromQL expression reads, for checking alert rules and dashboards against
 * what a process exports. A small lexer, not a parser: strings, label matchers (`{…}`), ranges
 * and durations (`[…]`), numbers, keywords, functions and aggregations (a name followed by `(`),
 * durations after `offset`, and the label lists after `by`, `without`, `on`, `ignoring`, `group_left` and `group_right`
 * are skipped; every other identifier is a metric name. Grafana variables (`$__rate_interval`)
 * only appear inside ranges and strings, so they are skipped with them.
 */
export function promqlMetricNames(expression: string): string[] {
  const names = new Set<string>();
  const text = expression;
  let i = 0;
  const skipGroup = (open: string, close: string): void => {
    let depth = 0;
    for (; i < text.length; i++) {
      const char = text[i];
      if (char === '"' || char === "'" || char === '`') {
        skipString();
        i -= 1;
        continue;
      }
      if (char === open) depth += 1;
      else if (char === close && --depth === 0) {
        i += 1;
        return;
      }
    }
    throw new Error(`unbalanced ${open} in ${JSON.stringify(expression)}`);
  };
  const skipString = (): void => {
    const quote = text[i];
    for (i += 1; i < text.length; i++) {
      if (text[i] === '\\' && quote !== '`') i += 1;
      else if (text[i] === quote) {
        i += 1;
        return;
      }
    }
    throw new Error(`unterminated string in ${JSON.stringify(expression)}`);
  };
  const nextNonSpace = (from: number): string | undefined => {
    let j = from;
    while (j < text.length && /\s/.test(text[j] ?? '')) j += 1;
    return text[j];
  };
  while (i < text.length) {
    const char = text[i] ?? '';
    if (char === '"' || char === "'" || char === '`') skipString();
    else if (char === '{') skipGroup('{', '}');
    else if (char === '[') skipGroup('[', ']');
    else if (char === '#') {
      while (i < text.length && text[i] !== '\n') i += 1;
    } else if (/[0-9.]/.test(char)) {
      // A number, or a duration (`5m`, `1h30m`, after `offset`).
      const number = /^(?:0x[0-9a-fA-F]+|[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?(?:(?:ms|[smhdwy])(?:[0-9]+(?:ms|[smhdwy]))*)?)/.exec(text.slice(i));
      i += Math.max(1, number?.[0].length ?? 0);
    } else if (/[a-zA-Z_:]/.test(char)) {
      const word = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(text.slice(i))?.[0] ?? char;
      i += word.length;
      const lower = word.toLowerCase();
      if (LABEL_LIST_KEYWORDS.has(lower)) {
        if (nextNonSpace(i) === '(') {
          while (text[i] !== '(') i += 1;
          skipGroup('(', ')');
        }
      } else if (KEYWORDS.has(lower) || AGGREGATIONS.has(lower) || nextNonSpace(i) === '(') {
        // an operator, a literal, or a function / aggregation call
      } else {
        names.add(word);
      }
    } else i += 1;
  }
  return [...names].sort();
}

const LABEL_LIST_KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);
const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'atan2', 'inf', 'nan']);
const AGGREGATIONS = new Set(['sum', 'min', 'max', 'avg', 'group', 'stddev', 'stdvar', 'count', 'count_values', 'bottomk', 'topk', 'quantile', 'limitk', 'limit_ratio']);

/**
 * The metric families a Prometheus text exposition declares (`# TYPE name type`), with the
 * sample names each serves: a histogram's `_bucket`, `_sum` and `_count`, a summary's `_sum` and
 * `_count`. Families are declared even before their first sample, so this is what may be queried.
 */
export function exposedSeriesNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const match of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    const [, name = '', type] = match;
    names.add(name);
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name}${suffix}`);
    if (type === 'summary') for (const suffix of ['_sum', '_count']) names.add(`${name}${suffix}`);
  }
  return names;
}
