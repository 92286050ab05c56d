"""Reading a kernel's source: the function's ``ast`` with absolute positions
(never bytecode), cached per file, and the names a function binds."""

from __future__ import annotations

import ast
import dis
import inspect
import linecache
import textwrap
import warnings
import weakref
from dataclasses import dataclass
from types import CodeType, FunctionType

from . import exec_sources
from .errors import CompileError, DebugInfoWarning

__all__ = ["FunctionSource", "read_function", "BoundNames"]


@dataclass
class FunctionSource:
    funcdef: ast.FunctionDef
    filename: str
    col_shift: int  # the indentation textwrap.dedent removed, added back to columns
    bound_names: frozenset[str]  # names the body binds (BoundNames), parameters aside


# Parsed functions by (file, first line, name), valid while linecache holds the same
# lines for the file: re-reading and re-parsing a source is most of a warm compile.
# linecache is asked to check the file first (one stat), so that a file edited and
# reloaded is read again rather than compiled as it was.
_SOURCE_CACHE: dict[tuple[str, int, str], tuple[list[str], FunctionSource]] = {}


def read_function(pyfunc: FunctionType) -> FunctionSource:
    code = pyfunc.__code__
    key = (code.co_filename, code.co_firstlineno, code.co_name)
    linecache.checkcache(code.co_filename)
    lines = linecache.getlines(code.co_filename)
    cached = _SOURCE_CACHE.get(key)
    if cached is not None and cached[0] is lines and lines:
        return cached[1]
    source = _parse_function(pyfunc)
    if lines:
        _SOURCE_CACHE[key] = (lines, source)
    return source


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


_CLOSING = (")", "]", "}")


def _indented_block(lines: list[str], start: int) -> list[str] | None:
    """The lines of the function whose decorators or def start at lines[start]:
    its decorators, its def, and its body up to the next line that is neither
    blank, nor a comment, nor indented deeper (nor a closing bracket of the
    signature). A line inside a bracket or a string may break that rule; the
    text cut there does not parse, and the caller asks inspect instead. A cut
    that parses is the whole function. None where lines[start] is no def."""
    indent = _indent(lines[start])
    end = start
    while not lines[end].lstrip().startswith(("def ", "async def ")):
        text = lines[end]
        deeper = _indent(text) > indent or text.lstrip().startswith(_CLOSING)
        if not (text.lstrip().startswith("@") or deeper or not text.strip()):
            return None
        end += 1
        if end == len(lines):
            return None
    end += 1
    while end < len(lines):
        text = lines[end]
        stripped = text.strip()
        if stripped and not stripped.startswith("#") and _indent(text) <= indent \
                and not stripped.startswith(_CLOSING):
            break
        end += 1
    return lines[start:end]


# Texts that came with functions pickled by value (function_text, attach_text): such a
# function's code names no file ("<dynamic-code>" after cloudpickle).
_ATTACHED: "weakref.WeakKeyDictionary[FunctionType, list[str]]" = weakref.WeakKeyDictionary()


def function_text(pyfunc: FunctionType) -> tuple[int, list[str]] | None:
    """The first line and the lines of a function's definition (decorators included),
    to pickle with a function that travels by value; None where there is no text."""
    lines = _file_lines(pyfunc)
    first = pyfunc.__code__.co_firstlineno
    if not 0 < first <= len(lines):
        return None
    if pyfunc.__name__ == "<lambda>":
        return first, [lines[first - 1]]
    block = _indented_block(lines, first - 1)
    try:
        ast.parse(_dedented(block)[0]) if block else None
    except SyntaxError:
        block = None  # cut inside a bracket: ask inspect
    if not block:
        try:
            block, first = inspect.getsourcelines(pyfunc)
        except (OSError, TypeError):
            return None
    return first, block


def attach_text(pyfunc: FunctionType, first_line: int, lines: list[str]) -> None:
    """Gives an unpickled function the text it was pickled with, at its first line."""
    _ATTACHED[pyfunc] = ["\n"] * (first_line - 1) + list(lines)


def function_from_text(text: str, name: str, scope: dict, filename: str) -> FunctionType:
    """The function `name` that `text` defines (with the globals `scope`), its text attached
    so that it compiles as a kernel: how vectorize and guvectorize write their loops."""
    exec(compile(text, filename, "exec"), scope)  # noqa: S102 - generated source
    function = scope[name]
    attach_text(function, 1, text.splitlines(keepends=True))
    return function


def _file_lines(pyfunc: FunctionType) -> list[str]:
    """The lines of the file a function is in; for one made by exec of a string or by
    python -c, the recorded text it was compiled from (exec_sources); for one pickled by
    value, the text that came with it."""
    attached = _ATTACHED.get(pyfunc)
    if attached is not None:
        return attached
    code = pyfunc.__code__
    lines = linecache.getlines(code.co_filename, pyfunc.__globals__)
    if not lines and code.co_filename.startswith("<"):
        lines = exec_sources.lines_for(code) or _typed_at_the_prompt(code)
    return lines


def source_file_readable(pyfunc: FunctionType) -> bool:
    """Whether the file a function's code names can be read (from disk, or from linecache,
    where IPython and Jupyter register their cells): what a debugger shows as the source of
    debug=True's line information. A function defined by exec of a string or by python -c
    is compiled from the text exec_sources recorded, but its file ('<string>') is not."""
    code = pyfunc.__code__
    return bool(linecache.getlines(code.co_filename, pyfunc.__globals__))


def warn_unreadable_source(pyfunc: FunctionType) -> None:
    """debug=True of a function whose file cannot be read: DebugInfoWarning (Numba's
    "Could not find source for function ..." warning, with cudajit's reason)."""
    code = pyfunc.__code__
    message = (f"Could not find source for function {pyfunc} in a readable file: its code "
               f"names {code.co_filename!r}, so the debug information (debug=True) points a "
               "debugger (cuda-gdb) at lines of a file it cannot open. Define the function in "
               "a file to debug its source lines.")
    # Reported at the function, not at the compiler's frame that noticed it.
    warnings.warn_explicit(DebugInfoWarning(message), DebugInfoWarning, code.co_filename,
                           code.co_firstlineno,
                           module=getattr(pyfunc, "__module__", None) or code.co_filename)


def warn_if_source_unreadable(pyfunc: FunctionType) -> None:
    """debug=True of a function compiled alone (compile_ptx, a device function's inspect_*):
    DebugInfoWarning where its file cannot be read."""
    if not source_file_readable(pyfunc):
        warn_unreadable_source(pyfunc)


def _typed_at_the_prompt(code: CodeType) -> list[str]:
    """What was typed at Python 3.13's interactive prompt for this code, which its linecache
    keeps by code object; [] elsewhere (3.11's prompt and ``python -`` keep no text)."""
    lines_from_code = getattr(linecache, "_getlines_from_code", None)
    return list(lines_from_code(code)) if lines_from_code is not None else []


# Where Python keeps no text of what it ran: the interactive prompt (3.11's "<stdin>",
# 3.13's "<python-input-N>") and a program read from standard input (python - < file).
_NO_SOURCE_ADVICE = (
    "it was typed at the interactive prompt or read from standard input (python - < file), "
    "of which this Python keeps no text. cudajit compiles a kernel from its source: put it in "
    "a file and run it (python file.py) or import it, or exec its text "
    "(exec(open('file.py').read())); Python 3.13's interactive prompt keeps what was typed")


def _source_missing(pyfunc: FunctionType, why: str) -> CompileError:
    code = pyfunc.__code__
    filename = code.co_filename
    if filename == "<stdin>" or filename.startswith("<python-input"):
        why = _NO_SOURCE_ADVICE
    return CompileError(f"cannot read the source of '{pyfunc.__qualname__}' ({why})",
                        filename, code.co_firstlineno, 0)


def _parse_lambda(pyfunc: FunctionType) -> FunctionSource:
    """A lambda, found in its file's syntax tree: the one lambda on its first line
    with its parameters (two alike on a line cannot be told apart: an error). Its
    body is the function's return value."""
    code = pyfunc.__code__
    filename = code.co_filename
    lines = _file_lines(pyfunc)
    params = list(code.co_varnames[:code.co_posonlyargcount + code.co_argcount])
    found: list[ast.Lambda] = []
    try:
        tree = ast.parse("".join(lines), filename=filename) if lines else None
    except SyntaxError:
        tree = None
    if tree is not None:
        found = [node for node in ast.walk(tree)
                 if isinstance(node, ast.Lambda) and node.lineno == code.co_firstlineno
                 and [a.arg for a in node.args.posonlyargs + node.args.args] == params]
    if len(found) != 1:
        why = ("its source cannot be read" if not found else
               f"{len(found)} lambdas with these parameters are on that line")
        if not found and not lines:
            raise _source_missing(pyfunc, "its source cannot be read")
        raise CompileError(f"cannot compile this lambda: {why}; define the function with def",
                           filename, code.co_firstlineno, 0)
    node = found[0]
    body = [ast.Return(value=node.body, lineno=node.body.lineno,
                       col_offset=node.body.col_offset)]
    funcdef = ast.FunctionDef(name="lambda", args=node.args, body=body, decorator_list=[],
                              returns=None, type_comment=None, lineno=node.lineno,
                              col_offset=node.col_offset)
    if "type_params" in ast.FunctionDef._fields:  # Python 3.12: a lambda has none
        funcdef.type_params = []
    return FunctionSource(funcdef, filename, 0, frozenset())


def _parse_function(pyfunc: FunctionType) -> FunctionSource:
    code = pyfunc.__code__
    filename = code.co_filename
    if pyfunc.__name__ == "<lambda>":
        return _parse_lambda(pyfunc)
    # The function's lines from linecache, cut by indentation: inspect's
    # tokenizer costs milliseconds (its regular expressions, the first time).
    file_lines = _file_lines(pyfunc)
    first_line = code.co_firstlineno
    lines = None
    if 0 < first_line <= len(file_lines):
        lines = _indented_block(file_lines, first_line - 1)
    tree = None
    if lines:
        dedented, col_shift = _dedented(lines)
        try:
            tree = ast.parse(dedented, filename=filename)
        except SyntaxError:
            pass  # cut inside a bracket or a string: inspect finds the end
    if tree is None:
        try:
            lines, first_line = inspect.getsourcelines(pyfunc)
        except (OSError, TypeError) as exc:
            raise _source_missing(
                pyfunc, f"{exc}; cudajit compiles functions defined in a source file") from None
        dedented, col_shift = _dedented(lines)
        try:
            tree = ast.parse(dedented, filename=filename)
        except SyntaxError as exc:
            raise CompileError(f"cannot parse the source of '{pyfunc.__qualname__}': {exc.msg}",
                               filename, (exc.lineno or 1) + first_line - 1,
                               max((exc.offset or 1) - 1, 0) + col_shift) from None
    ast.increment_lineno(tree, first_line - 1)
    funcdef = tree.body[0] if tree.body else None
    if not isinstance(funcdef, ast.FunctionDef) or funcdef.name != code.co_name:
        what = "async functions" if isinstance(funcdef, ast.AsyncFunctionDef) else "this function"
        raise CompileError(f"cannot compile {what}: '{pyfunc.__qualname__}' is not a plain def",
                           filename, first_line, col_shift)
    _check_source_is_the_loaded_code(pyfunc, funcdef, filename)
    collector = BoundNames()
    for stmt in funcdef.body:
        collector.visit(stmt)
    return FunctionSource(funcdef, filename, col_shift, frozenset(collector.names))


def _fingerprint(code: CodeType) -> tuple[list[str], frozenset[str]]:
    """What a function's bytecode is made of, wherever it was compiled: its
    constants and every name it uses (a closure's free variable compiled
    alone becomes a global: both count as names)."""
    consts: list[str] = []
    names = set(code.co_names) | set(code.co_varnames) | set(code.co_freevars) \
        | set(code.co_cellvars)
    for const in code.co_consts:
        if isinstance(const, CodeType):
            inner_consts, inner_names = _fingerprint(const)
            consts += inner_consts
            names |= inner_names
        elif isinstance(const, str) and "\n" in const:
            # The text is parsed dedented: a nested function's multi-line strings (its
            # docstring) lose indentation that the loaded code's keep.
            consts.append(repr("\n".join(line.lstrip() for line in const.split("\n"))))
        else:
            consts.append(repr(const))
    if _LOAD_SMALL_INT is not None:  # Python 3.14 loads 0..255 without a constant
        consts += [repr(i.argval) for i in dis.get_instructions(code)
                   if i.opcode == _LOAD_SMALL_INT]
    return sorted(consts), frozenset(names)


_LOAD_SMALL_INT: int | None = dis.opmap.get("LOAD_SMALL_INT")


def _check_source_is_the_loaded_code(pyfunc: FunctionType, funcdef: ast.FunctionDef,
                                     filename: str) -> None:
    """The text read from the file must be the code Python is running: a file
    edited after import would otherwise be compiled as it is now, not as it was
    loaded (a kernel saying `+= 1` in memory running `+= 100`)."""
    alone = ast.FunctionDef(name=funcdef.name, args=funcdef.args, body=funcdef.body,
                            decorator_list=[], returns=funcdef.returns,
                            type_comment=None, **_type_params(funcdef))
    module = ast.fix_missing_locations(ast.Module(body=[alone], type_ignores=[]))
    try:
        compiled = compile(module, filename, "exec", dont_inherit=True)
    except SyntaxError:
        return  # it needs its enclosing function (nonlocal): nothing to compare with
    code = _function_code(compiled, funcdef.name)
    if code is None:
        return
    # Contained, not equal: import hooks such as pytest's assert rewriting add
    # constants and names to the loaded code, never remove the source's.
    source_consts, source_names = _fingerprint(code)
    loaded_consts, loaded_names = _fingerprint(pyfunc.__code__)
    if not (set(source_consts) <= set(loaded_consts) and source_names <= loaded_names):
        raise CompileError(
            f"the source of '{pyfunc.__qualname__}' in {filename} is not the code Python "
            "loaded (was the file edited after it was imported?); reload the module, or "
            "restart, to compile what the file says", filename, funcdef.lineno,
            funcdef.col_offset)


def _function_code(module: CodeType, name: str) -> CodeType | None:
    """The code of the function `name` that a module defines: among the module's constants,
    or, for a generic function (Python 3.12's def f[T]), inside the code that makes its type
    parameters."""
    for const in module.co_consts:
        if isinstance(const, CodeType):
            if const.co_name == name:
                return const
            if const.co_name == f"<generic parameters of {name}>":
                return _function_code(const, name)
    return None


def _type_params(funcdef: ast.FunctionDef) -> dict:
    # Python 3.12 added type parameters to function definitions.
    return {"type_params": funcdef.type_params} if hasattr(funcdef, "type_params") else {}


def _dedented(lines: list[str]) -> tuple[str, int]:
    """The function's text without its common indentation, and that indentation's width."""
    dedented = textwrap.dedent("".join(lines))
    return dedented, len(lines[0]) - len(dedented.splitlines(keepends=True)[0])


class BoundNames(ast.NodeVisitor):
    """Names bound anywhere in a function body: Python's rule for locals."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Name(self, node: ast.Name) -> None:
        if not isinstance(node.ctx, ast.Load):
            self.names.add(node.id)

    def visit_FunctionDef(self, node: ast.AST) -> None:
        self.names.add(node.name)  # the name is bound here; its body is another scope

    visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    def visit_Lambda(self, node: ast.AST) -> None:
        pass  # own scope

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_Lambda

    def visit_Import(self, node: ast.Import | ast.ImportFrom) -> None:
        for alias in node.names:
            if alias.name != "*":
                self.names.add(alias.asname or alias.name.split(".")[0])

    visit_ImportFrom = visit_Import

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self.names.add(node.name)
        self.generic_visit(node)
