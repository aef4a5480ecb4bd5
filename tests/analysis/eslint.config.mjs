// ESLint flat config for tests/analysis/crosscheck.py: ESLint's own `complexity` rule with
// max 0 (so it reports every function with its number), plus `crosscheck/apart`, which counts,
// per function, the increments of that rule that minimcp (and lizard) leave out by definition.
// The tools come from $ESLINT_HOME (a scratch `npm install`), not from this repository.
//
// `complexity` (ESLint 9.15, https://eslint.org/docs/latest/rules/complexity, "classic"
// variant) adds 1 per code path for: if, ?:, && || ?? (and &&= ||= ??=), for, for-in,
// for-of, while, do-while, catch, a `case` with a test, every AssignmentPattern (a default
// value, in parameters or in a destructuring), and every optional `?.` member or call.
// `apart` counts three of those that minimcp does not count:
//   optional     every `?.` (minimcp: `a?.b` is not a decision)
//   destructure  a default inside the function body (`const {a = 1} = o`): minimcp counts
//                defaults in the parameter list only
//   template     a decision inside a template literal's `${…}` (minimcp follows lizard,
//                which reads a template literal as one string)
// The mapped number is complexity − optional − destructure − template.
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(path.join(process.env.ESLINT_HOME, "package.json"));
const tsParser = require("@typescript-eslint/parser");

const FUNCTION = new Set(["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression"]);

function inParameters(node) {
  // True when the node sits in the parameter list of the nearest enclosing function.
  let child = node;
  for (let p = node.parent; p; child = p, p = p.parent) {
    if (FUNCTION.has(p.type)) {
      return p.params.includes(child);
    }
  }
  return false;
}

function inTemplate(node) {
  for (let p = node.parent; p; p = p.parent) {
    if (p.type === "TemplateLiteral") {
      return true;
    }
  }
  return false;
}

const apart = {
  meta: { type: "suggestion", schema: [], messages: { apart: "{{counts}}" } },
  create(context) {
    const stack = [];
    const add = (node) => {
      const top = stack[stack.length - 1];
      if (!top) {
        return;
      }
      if (node.type === "MemberExpression" || node.type === "CallExpression") {
        if (node.optional === true) {
          top.optional++;
        }
        return;
      }
      if (node.type === "AssignmentPattern") {
        // minimcp counts parameter defaults from the tokens, inside `${…}` or not.
        if (!inParameters(node)) {
          top.destructure++;
        }
        return;
      }
      if (inTemplate(node)) {
        top.template++;
      }
    };
    const logicalAssignment = new Set(["&&=", "||=", "??="]);
    return {
      onCodePathStart() {
        stack.push({ optional: 0, destructure: 0, template: 0 });
      },
      onCodePathEnd(codePath, node) {
        const counts = stack.pop();
        const origin = codePath.origin;
        if (origin !== "function" && origin !== "class-field-initializer" && origin !== "class-static-block") {
          return;
        }
        context.report({ node, messageId: "apart", data: { counts: JSON.stringify({ ...counts, origin }) } });
      },
      CatchClause: add,
      ConditionalExpression: add,
      LogicalExpression: add,
      ForStatement: add,
      ForInStatement: add,
      ForOfStatement: add,
      IfStatement: add,
      WhileStatement: add,
      DoWhileStatement: add,
      AssignmentPattern: add,
      "SwitchCase[test]": add,
      AssignmentExpression(node) {
        if (logicalAssignment.has(node.operator)) {
          add(node);
        }
      },
      MemberExpression: add,
      CallExpression: add,
    };
  },
};

const rules = { complexity: ["error", { max: 0, variant: "classic" }], "crosscheck/apart": "error" };
const plugins = { crosscheck: { rules: { apart } } };

export default [
  // CommonJS unless the package is written as ES modules (moment's src/lib).
  { files: ["**/*.js"], languageOptions: { ecmaVersion: "latest", sourceType: "commonjs" }, plugins, rules },
  { files: ["**/moment_*/**/*.js"], languageOptions: { sourceType: "module" } },
  { files: ["**/*.ts"], languageOptions: { parser: tsParser, sourceType: "module" }, plugins, rules },
];
