/** An element of a parsed XML document: its name, attributes and child elements (text is checked, not kept). */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
}

const NAME = /^[A-Za-z_:][\w.:-]*/;
const REFERENCE = /^&(?:amp|lt|gt|quot|apos|#\d+|#x[\da-fA-F]+);/;
const PREDEFINED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * Parses `text` as a well-formed XML 1.0 document (no DTD) and returns its root element; throws
 * saying what is wrong and at which offset: unclosed or mismatched tags, a second root, a raw `<`
 * or `&` in text or attributes, a repeated attribute. Enough to prove generated SVG is XML, with
 * no XML parser among the dependencies.
 */
export function parseXml(text: string): XmlElement {
  let at = 0;
  const fail = (what: string): never => {
    throw new SyntaxError(`not well-formed XML at offset ${at}: ${what} (near ${JSON.stringify(text.slice(at, at + 30))})`);
  };
  /** Skips a construct that starts at `at` with `open` up to its `close`; false when none starts there. */
  const skipPast = (open: string, close: string, what: string): boolean => {
    if (!text.startsWith(open, at)) return false;
    const end = text.indexOf(close, at + open.length);
    if (end < 0) fail(`unclosed ${what}`);
    at = end + close.length;
    return true;
  };
  const skipMisc = (): void => {
    for (;;) {
      while (/\s/.test(text[at] ?? '')) at += 1;
      if (!skipPast('<!--', '-->', 'comment') && !skipPast('<?', '?>', 'processing instruction')) return;
    }
  };
  const name = (): string => {
    const match = NAME.exec(text.slice(at));
    if (match === null) return fail('a name was expected');
    at += match[0].length;
    return match[0];
  };
  /** Character data up to `stop`, checking every `&`; returns it with references resolved. */
  const characters = (stop: RegExp, where: string): string => {
    let out = '';
    while (at < text.length && !stop.test(text[at] ?? '')) {
      if (text[at] === '&') {
        const match = REFERENCE.exec(text.slice(at));
        if (match === null) fail(`a raw "&" in ${where}`);
        const body = (match as RegExpExecArray)[0].slice(1, -1);
        out += PREDEFINED[body] ?? String.fromCodePoint(body.startsWith('#x') ? parseInt(body.slice(2), 16) : Number(body.slice(1)));
        at += (match as RegExpExecArray)[0].length;
      } else {
        if (text.startsWith(']]>', at)) fail(`"]]>" in ${where}`);
        out += text[at];
        at += 1;
      }
    }
    return out;
  };
  const element = (): XmlElement => {
    if (text[at] !== '<') fail('"<" was expected');
    at += 1;
    const tag = name();
    const attributes: Record<string, string> = {};
    for (;;) {
      const spaced = /\s/.test(text[at] ?? '');
      while (/\s/.test(text[at] ?? '')) at += 1;
      if (text.startsWith('/>', at)) {
        at += 2;
        return { name: tag, attributes, children: [] };
      }
      if (text[at] === '>') {
        at += 1;
        break;
      }
      if (!spaced) fail('white space before an attribute was expected');
      const attribute = name();
      if (attribute in attributes) fail(`attribute ${attribute} repeated`);
      while (/\s/.test(text[at] ?? '')) at += 1;
      if (text[at] !== '=') fail(`"=" after attribute ${attribute} was expected`);
      at += 1;
      while (/\s/.test(text[at] ?? '')) at += 1;
      const quote = text[at];
      if (quote !== '"' && quote !== "'") return fail(`a quoted value of attribute ${attribute} was expected`);
      at += 1;
      const value = characters(quote === '"' ? /["<]/ : /['<]/, `attribute ${attribute}`);
      if (text[at] !== quote) fail(`a raw "<" or an unclosed value in attribute ${attribute}`);
      at += 1;
      attributes[attribute] = value;
    }
    const children: XmlElement[] = [];
    for (;;) {
      characters(/</, `the text of <${tag}>`);
      if (at >= text.length) fail(`<${tag}> is not closed`);
      if (text.startsWith('</', at)) {
        at += 2;
        const closing = name();
        if (closing !== tag) fail(`</${closing}> closes <${tag}>`);
        while (/\s/.test(text[at] ?? '')) at += 1;
        if (text[at] !== '>') fail('">" was expected');
        at += 1;
        return { name: tag, attributes, children };
      }
      if (!skipPast('<!--', '-->', 'comment') && !skipPast('<![CDATA[', ']]>', 'CDATA section')) children.push(element());
    }
  };
  skipMisc();
  const root = element();
  skipMisc();
  if (at < text.length) fail('content after the root element');
  return root;
}
