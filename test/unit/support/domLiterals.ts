/**
 * Finds English a webview file writes into the DOM as a literal, where it should look a word up
 * (src/webview/words.ts): text given to `h(…)`, `append`, `createTextNode`, `textContent`,
 * `innerText`, `title`, `placeholder`, the `aria-label`, `title`, `placeholder`, `alt` and `label`
 * attributes (in `h`'s attributes or `setAttribute`), and text or those attributes inside an HTML
 * template (markdown.ts builds its code blocks' HTML as strings). A literal counts when it holds
 * two letters in a row; a conditional, `||`, `??`, `+` or a template is looked into, a call is not
 * (`word('key')` is the call that gives words).
 */
import ts from 'typescript';

const TEXT_PROPERTIES = new Set(['textContent', 'innerText', 'title', 'placeholder', 'ariaLabel', 'alt']);
const TEXT_ATTRIBUTES = new Set(['aria-label', 'title', 'placeholder', 'alt', 'label']);
const TEXT_CALLS = new Set(['append', 'prepend', 'createTextNode', 'replaceChildren']);
const WORDS = /[A-Za-z]{2,}/;

export interface DomLiteral {
  line: number;
  text: string;
}

/** The literal parts an expression can evaluate to, as far as they are written in it. */
function literals(node: ts.Expression): string[] {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return [node.text];
  if (ts.isTemplateExpression(node)) return [node.head.text, ...node.templateSpans.flatMap((span) => [...literals(span.expression), span.literal.text])];
  if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node)) return literals(node.expression);
  if (ts.isConditionalExpression(node)) return [...literals(node.whenTrue), ...literals(node.whenFalse)];
  if (
    ts.isBinaryExpression(node) &&
    [ts.SyntaxKind.BarBarToken, ts.SyntaxKind.QuestionQuestionToken, ts.SyntaxKind.PlusToken].includes(node.operatorToken.kind)
  )
    return [...literals(node.left), ...literals(node.right)];
  return [];
}

/** HTML written as a string: text between tags, and the text attributes' values. */
function htmlWords(html: string): string[] {
  const out: string[] = [];
  for (const match of html.matchAll(/>([^<>]*)</g)) out.push(match[1]!);
  for (const match of html.matchAll(/\b(aria-label|title|placeholder|alt)="([^"]*)"/g)) out.push(match[2]!);
  return out;
}

/** Each place in `source` (a webview file's text) that puts a literal word into the DOM. */
export function domLiterals(fileName: string, source: string): DomLiteral[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  const found: DomLiteral[] = [];
  const report = (node: ts.Node, texts: string[]) => {
    for (const text of texts) if (WORDS.test(text)) found.push({ line: file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1, text });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const name = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : '';
      if (name === 'h') {
        const [, attrs, ...children] = node.arguments;
        if (attrs && ts.isObjectLiteralExpression(attrs))
          for (const property of attrs.properties)
            if (ts.isPropertyAssignment(property) && TEXT_ATTRIBUTES.has(property.name.getText(file).replace(/^['"]|['"]$/g, '')))
              report(property, literals(property.initializer));
        for (const child of children) report(child, literals(child));
      } else if (TEXT_CALLS.has(name)) for (const argument of node.arguments) report(argument, literals(argument));
      else if (name === 'setAttribute') {
        const [attribute, value] = node.arguments;
        if (attribute && value && ts.isStringLiteral(attribute) && TEXT_ATTRIBUTES.has(attribute.text)) report(value, literals(value));
      }
    }
    if (
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
      ts.isPropertyAccessExpression(node.left) &&
      TEXT_PROPERTIES.has(node.left.name.text)
    )
      report(node.right, literals(node.right));
    // HTML in a template (an element's markup as a string): the words between its tags and in its text attributes.
    if (ts.isTemplateExpression(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isStringLiteral(node)) {
      const parts = ts.isTemplateExpression(node) ? [node.head.text, ...node.templateSpans.map((span) => span.literal.text)] : [node.text];
      // The parts joined with a mark where each value went: `>[image: ${alt}]<` is one text, "[image: ]".
      const html = parts.join('{}');
      if (/<\/?[a-z][\w-]*[\s>]/.test(html)) report(node, htmlWords(html));
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}
