"""debug=True's debug information (as nvcc -G): the LLVM IR describes each function and each
Python variable with its type and line (DILocalVariable, DIBasicType, DICompositeType), the PTX
carries DWARF sections (.debug_info) that ptxas accepts, and kernels still run on each device.
lineinfo=True gives the line tables alone."""

import re
import warnings

import numpy as np
import pytest

import cudajit as cuda
from cudajit import complex128, float32, float64, int32, int64
from cudajit.errors import DebugInfoWarning, InvalidConfigWarning
from test_compile_ptx import lines_of, loc_lines


def variables(llvm_ir):
    """{name: [(arg, line, type node)]} of the DILocalVariables."""
    found = {}
    for name, arg, line, node in re.findall(
            r'!DILocalVariable\(name: "([^"]+)", (?:arg: (\d+), )?scope: ![0-9]+, '
            r'file: ![0-9]+, line: (\d+), type: (![0-9]+)', llvm_ir):
        found.setdefault(name, []).append((int(arg or 0), int(line), node))
    return found


def node(llvm_ir, ref):
    """The text of metadata node `ref` (!12)."""
    return re.search(rf"^{ref} = (.*)$", llvm_ir, re.M).group(1)


def described(llvm_ir, name):
    """The type node of the one variable `name`."""
    ((_, _, ref),) = variables(llvm_ir)[name]
    return node(llvm_ir, ref)


def locals_and_rebinding(x, y, out):
    same = x == y
    total = 0
    for i in range(x):
        total += i
    value = 1.5
    value = 2
    out[0] = total + int(same) + value


LOCALS_SIG = (int32, int32, int64[::1])


def llvm_of(pyfunc, sig):
    kernel = cuda.jit(sig, debug=True, opt=False)(pyfunc)
    return kernel.inspect_llvm(sig)


def test_each_python_variable_is_described_with_its_type_and_first_line():
    llvm_ir = llvm_of(locals_and_rebinding, LOCALS_SIG)
    found = variables(llvm_ir)
    (def_line,) = lines_of(locals_and_rebinding, "def locals_and_rebinding")
    assert [(arg, line) for arg, line, _ in found["x"]] == [(1, def_line)]
    assert [(arg, line) for arg, line, _ in found["y"]] == [(2, def_line)]
    assert [(arg, line) for arg, line, _ in found["out"]] == [(3, def_line)]
    assert [line for _, line, _ in found["total"]] == lines_of(locals_and_rebinding, "total = 0")
    assert "DW_ATE_boolean" in described(llvm_ir, "same")
    assert 'name: "int64", size: 64, encoding: DW_ATE_signed' in described(llvm_ir, "total")
    assert 'name: "int32", size: 32, encoding: DW_ATE_signed' in described(llvm_ir, "x")


def union_members(llvm_ir, union):
    """[(member name, its type's name, size)] of a DW_TAG_union_type node's text."""
    assert "DW_TAG_union_type" in union, union
    elements = node(llvm_ir, re.search(r"elements: (![0-9]+)", union)[1])
    found = []
    for ref in re.findall(r"![0-9]+", elements):
        member = node(llvm_ir, ref)
        assert "DW_TAG_member" in member and "offset:" not in member  # all at offset 0
        base = node(llvm_ir, re.search(r"baseType: (![0-9]+)", member)[1])
        found.append((re.search(r'name: "([^"]+)"', member)[1],
                      re.search(r'name: "([^"]+)"', base)[1],
                      int(re.search(r"size: (\d+)", member)[1])))
    return found


def test_a_rebound_variable_is_one_variable_of_the_union_of_its_types():
    # `value = 1.5` then `value = 2`: two bindings (webs) that share one slot, so that a
    # debugger reading `value` sees its current value; their types are the union's members,
    # named as Numba names them.
    llvm_ir = llvm_of(locals_and_rebinding, LOCALS_SIG)
    ((arg, line, ref),) = variables(llvm_ir)["value"]
    (first,) = lines_of(locals_and_rebinding, "value = 1.5")
    assert (arg, line) == (0, first)
    union = node(llvm_ir, ref)
    assert 'name: "union(float64, int64)", size: 64, align: 64' in union
    assert union_members(llvm_ir, union) == [("_float64", "float64", 64), ("_int64", "int64", 64)]
    body = llvm_ir.split("!llvm.dbg.cu")[0]
    assert len(re.findall(r"%value = alloca", body)) == 1 and '#2" = alloca' not in body
    assert "value#" not in llvm_ir.split("!llvm.dbg.cu")[1]
    assert re.search(r"store double 1\.5\d*e\+00, ptr %value,", body)
    assert re.search(r"store i64 2, ptr %value,", body)


def rebound_parameter(x, flag, out):
    x = x * 0.5
    flag = 7
    same = 1
    out[0] = x + flag + same
    same = 2
    out[1] = same


def test_a_rebound_parameter_is_one_parameter_and_alike_types_are_not_a_union():
    sig = (int32, cuda.boolean, float64[::1])
    llvm_ir = llvm_of(rebound_parameter, sig)
    found = variables(llvm_ir)
    (def_line,) = lines_of(rebound_parameter, "def rebound_parameter")
    ((arg, line, ref),) = found["x"]
    assert (arg, line) == (1, def_line)
    assert union_members(llvm_ir, node(llvm_ir, ref)) == [("_float64", "float64", 64),
                                                          ("_int32", "int32", 32)]
    ((arg, _, ref),) = found["flag"]
    assert arg == 2
    assert union_members(llvm_ir, node(llvm_ir, ref)) == [("_bool", "bool", 8),
                                                          ("_int64", "int64", 64)]
    # `same` is two bindings of one type: one variable of that type.
    ((arg, line, ref),) = found["same"]
    assert (arg, line) == (0, lines_of(rebound_parameter, "same = 1")[0])
    assert 'name: "int64"' in node(llvm_ir, ref) and "union" not in node(llvm_ir, ref)


def rebinding_in_loops(x, out):
    v = x
    w = v + 1
    v = w * 0.5
    out[0] = v
    for i in range(4):
        t = i
        out[1] += t
        t = 1.5 * t
        out[2] += t
        if i > 1:
            t = i == 3
            out[3] += t
    k = 0
    while k < 3:
        out[4] += k
        k = k + 0.5


@pytest.mark.parametrize("opt", [False, True])
def test_kernels_with_rebound_variables_give_python_results_with_debug(device, opt, check_ptx):
    # The bindings' shared slot never holds a value a binding still needs: each read is
    # reached only by definitions of its own binding.
    sig = (int32, float64[::1])
    expected = np.zeros(5)
    rebinding_in_loops(3, expected)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InvalidConfigWarning)  # debug=True with opt=True
        kernel = cuda.jit(sig, debug=True, opt=opt)(rebinding_in_loops)
    out = cuda.to_device(np.zeros(5))
    kernel[1, 1](3, out)
    np.testing.assert_array_equal(out.copy_to_host(), expected)
    if device == "cuda":
        check_ptx(kernel.inspect_asm(sig))


def test_the_front_ends_own_variables_are_not_described():
    llvm_ir = llvm_of(locals_and_rebinding, LOCALS_SIG)
    assert set(variables(llvm_ir)) == {"x", "y", "out", "same", "total", "i", "value"}


def test_the_subprogram_is_the_python_function_with_its_parameter_types():
    llvm_ir = llvm_of(locals_and_rebinding, LOCALS_SIG)
    (def_line,) = lines_of(locals_and_rebinding, "def locals_and_rebinding")
    subprogram = re.search(r"distinct !DISubprogram\((.*)\)$", llvm_ir, re.M).group(1)
    assert 'name: "locals_and_rebinding"' in subprogram and f"line: {def_line}," in subprogram
    types = re.search(r"type: (![0-9]+)", subprogram).group(1)
    elements = re.search(r"types: (![0-9]+)", node(llvm_ir, types)).group(1)
    assert re.fullmatch(r"!\{null, (![0-9]+), \1, ![0-9]+\}", node(llvm_ir, elements))
    assert "emissionKind: FullDebug" in llvm_ir


def arrays_and_aggregates(a, c, out):
    shared = cuda.shared.array(32, float32)
    pair = (c, 1.5)
    shared[0] = a[0, 0]
    out[0] = pair[0].real + shared[0]


def test_arrays_tuples_and_complex_numbers_are_structures():
    sig = (float32[:, ::1], complex128, float64[::1])
    llvm_ir = llvm_of(arrays_and_aggregates, sig)
    array = described(llvm_ir, "a")
    assert 'name: "array(float32, 2d, C)", size: 320' in array
    members = [node(llvm_ir, m) for m in
               re.findall(r"![0-9]+", node(llvm_ir, re.search(r"elements: (![0-9]+)", array)[1]))]
    assert [re.search(r'name: "(\w+)"', m)[1] for m in members] == ["data", "shape", "strides"]
    assert "offset: 64" in members[1] and "offset: 192" in members[2]
    pointer = node(llvm_ir, re.search(r"baseType: (![0-9]+)", members[0])[1])
    assert "DW_TAG_pointer_type" in pointer and "dwarfAddressSpace" not in pointer
    assert 'name: "float32"' in node(llvm_ir, re.search(r"baseType: (![0-9]+)", pointer)[1])
    assert 'name: "array(float32, 1d, C)"' in described(llvm_ir, "shared")
    assert 'name: "complex128", size: 128' in described(llvm_ir, "c")
    assert 'name: "Tuple(complex128, float64)", size: 192' in described(llvm_ir, "pair")


def record_field(r, out):
    out[0] = r.b


def test_a_record_is_a_pointer_to_its_fields():
    dtype = np.dtype([("a", np.int32), ("b", np.float64)], align=True)
    sig = (cuda.types.Record(dtype), float64[::1])
    llvm_ir = llvm_of(record_field, sig)
    pointer = described(llvm_ir, "r")
    assert "DW_TAG_pointer_type" in pointer
    record = node(llvm_ir, re.search(r"baseType: (![0-9]+)", pointer)[1])
    assert "DW_TAG_structure_type" in record and "size: 128" in record
    fields = re.findall(r'name: "(\w)", baseType: ![0-9]+, size: (\d+)(?:, offset: (\d+))?',
                        llvm_ir)
    assert ("a", "32", "") in fields and ("b", "64", "64") in fields


def test_the_ptx_carries_dwarf_sections_that_ptxas_accepts(check_ptx):
    ptx, _ = cuda.compile_ptx(arrays_and_aggregates, (float32[:, ::1], complex128, float64[::1]),
                              debug=True, opt=False)
    assert re.search(r"\.section\s+\.debug_info\s+\{", ptx)
    assert ".target sm_80, debug" in ptx
    check_ptx(ptx)


def test_lineinfo_gives_line_tables_without_dwarf_sections(check_ptx):
    kernel = cuda.jit(LOCALS_SIG, lineinfo=True)(locals_and_rebinding)
    ptx = kernel.inspect_asm(LOCALS_SIG)
    assert ".debug_info" not in ptx and ", debug" not in ptx
    assert "emissionKind: DebugDirectivesOnly" in kernel.inspect_llvm(LOCALS_SIG)
    assert "DILocalVariable" not in kernel.inspect_llvm(LOCALS_SIG)
    files, _ = loc_lines(ptx)
    assert list(files.values()) == [__file__]
    check_ptx(ptx)


def test_line_tables_after_a_debug_compile_pass_ptxas(check_ptx):
    # The code generator's pipeline is reused from module to module: a debug module's DWARF
    # sections must not leave a section to close in the next module's PTX.
    cuda.compile_ptx(locals_and_rebinding, LOCALS_SIG, debug=True)
    ptx, _ = cuda.compile_ptx(locals_and_rebinding, LOCALS_SIG, lineinfo=True)
    assert ptx.count("{") == ptx.count("}")
    check_ptx(ptx)


def test_optimised_ptx_is_the_same_after_unoptimised_compiles():
    # One target machine per thread serves both levels: an -O0 compile must leave nothing
    # (its fast instruction selector) to the next -O3 one.
    before, _ = cuda.compile_ptx(locals_and_rebinding, LOCALS_SIG)
    cuda.compile_ptx(locals_and_rebinding, LOCALS_SIG, debug=True, opt=False)
    cuda.compile_ptx(locals_and_rebinding, LOCALS_SIG, opt=False)
    assert cuda.compile_ptx(locals_and_rebinding, LOCALS_SIG)[0] == before


@cuda.jit(device=True)
def offset_by(x, k):
    shifted = x + k
    return shifted


def calls_and_math(x, out):
    i = cuda.grid(1)
    if i < out.size:
        angle = x[i] * 0.5
        out[i] = offset_by(np.float32(2.0) * angle, i) + np.sin(angle) * 0


@pytest.mark.parametrize("opt", [False, True])
def test_debug_kernels_run_and_give_their_results(device, opt):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InvalidConfigWarning)  # debug=True with opt=True
        kernel = cuda.jit(debug=True, opt=opt)(calls_and_math)
    x = np.arange(64, dtype=np.float32)
    out = cuda.to_device(np.zeros(64, np.float64))
    kernel[2, 32](cuda.to_device(x), out)
    np.testing.assert_allclose(out.copy_to_host(), x + np.arange(64), rtol=1e-6)


def test_opt_false_keeps_the_variables_in_local_memory(check_ptx):
    unoptimised, _ = cuda.compile_ptx(locals_and_rebinding, LOCALS_SIG, debug=True, opt=False)
    optimised, _ = cuda.compile_ptx(locals_and_rebinding, LOCALS_SIG, debug=True)
    assert "__local_depot" in unoptimised and "__local_depot" not in optimised
    llvm_ir = llvm_of(locals_and_rebinding, LOCALS_SIG)
    assert "isOptimized: false" in llvm_ir and "DISPFlagOptimized" not in llvm_ir
    check_ptx(unoptimised)


def test_debug_with_opt_warns_as_numba_does():
    # The start of Numba's message ("... not supported by CUDA"), so filters for it match.
    with pytest.warns(InvalidConfigWarning, match="debug=True with opt=True: .*not supported by "
                                                  "CUDA"):
        cuda.jit(debug=True)(calls_and_math)
    with warnings.catch_warnings():
        warnings.simplefilter("error", InvalidConfigWarning)
        cuda.jit(debug=True, opt=False)(calls_and_math)
        cuda.jit(opt=True)(calls_and_math)


def test_debug_with_lineinfo_warns_as_numba_does():
    with pytest.warns(InvalidConfigWarning, match="debug and lineinfo are mutually exclusive"):
        cuda.jit(debug=True, lineinfo=True, opt=False)(calls_and_math)


def test_inspect_dicts_take_signatures_of_types():
    kernel = cuda.jit(LOCALS_SIG, debug=True, opt=False)(locals_and_rebinding)
    assert "DILocalVariable" in kernel.inspect_llvm()[LOCALS_SIG]
    assert LOCALS_SIG in kernel.inspect_asm()


def test_the_simulated_gpus_reports_name_the_lines_of_a_debug_kernel(tmp_path):
    from cudajit import _core
    from test_simulator_checks import EXCHANGE, run_script

    if not (_core.cuda_available() and _core.cuda_simulated()):
        pytest.skip("the cuda device is not the simulated GPU")
    script = EXCHANGE.replace("lineinfo=True", "debug=True, opt=False").format(between="pass")
    result = run_script(tmp_path, script, CUDAJIT_SIM_CHECK="race")
    assert result.returncode == 0, result.stderr
    source = str(tmp_path / "kernel.py")
    assert f"thread (0, 0, 0) wrote at {source}:9 (PTX line" in result.stderr
    assert f"thread (32, 0, 0) reads at {source}:11 (PTX line" in result.stderr


def test_a_device_functions_own_llvm_ir_and_ptx_have_its_debug_information(check_ptx):
    @cuda.jit("float64(float64, int64)", device=True, debug=True, opt=False)
    def shifted(x, k):
        moved = x + k
        return moved

    (sig,) = shifted.signatures
    llvm_ir = shifted.inspect_llvm(sig)
    assert set(variables(llvm_ir)) == {"x", "k", "moved"}
    assert "isOptimized: false" in llvm_ir
    assert shifted.inspect_llvm() == {tuple(sig.args): llvm_ir}
    ptx = shifted.inspect_asm(sig)
    assert re.search(r"\.section\s+\.debug_info", ptx)
    check_ptx(ptx, kernel=False)


def test_a_device_function_without_debug_has_no_variables():
    @cuda.jit("float64(float64)", device=True)
    def twice(x):
        doubled = 2 * x
        return doubled

    llvm_ir = twice.inspect_llvm(twice.signatures[0])
    assert "define" in llvm_ir and "DILocalVariable" not in llvm_ir


def test_a_device_functions_inspect_dicts_take_its_signatures():
    # Numba's idiom: f.inspect_llvm()[f.signatures[0]]. A device function's signatures are
    # Signature objects (with the return type); its dicts, keyed by argument types as
    # Numba's are, take them too.
    @cuda.jit("int64(boolean, boolean)", device=True, debug=True, opt=False)
    def choice(cond1, cond2):
        if cond1 and cond2:
            return 1
        return 2

    by_signature = choice.inspect_llvm()
    (sig,) = choice.signatures
    llvm_ir = by_signature[sig]
    assert list(by_signature) == [(cuda.boolean, cuda.boolean)]
    assert by_signature[(cuda.boolean, cuda.boolean)] is llvm_ir and sig in by_signature
    assert by_signature.get(sig) is llvm_ir
    assert choice.inspect_asm()[sig].count(".func") >= 1
    # Only the parameters are variables: `cond1 and cond2`'s temporaries are the front end's.
    assert set(variables(llvm_ir)) == {"cond1", "cond2"}


def _exec_defined(text):
    scope = {}
    exec(text, {"cuda": cuda}, scope)  # noqa: S102 - a function with no file, as in Numba's test
    return scope["foo"]


EXEC_KERNEL = """
def foo(out):
    out[0] = 7
"""


def test_debug_of_a_function_without_a_readable_file_warns(device):
    # cudajit compiles it from the text exec recorded, but its debug information names the
    # file '<string>', which a debugger cannot open: Numba's DebugInfoWarning, naming it.
    pyfunc = _exec_defined(EXEC_KERNEL)
    kernel = cuda.jit(debug=True, opt=False)(pyfunc)
    out = cuda.to_device(np.zeros(1, np.int32))
    with pytest.warns(DebugInfoWarning) as record:
        kernel[1, 1](out)
    assert out.copy_to_host()[0] == 7
    (found,) = [w for w in record if w.category is DebugInfoWarning]
    message = str(found.message)
    assert message.startswith(f"Could not find source for function {pyfunc}")
    assert "'<string>'" in message
    assert found.filename == "<string>" and found.lineno == 2  # the function's def
    assert cuda.errors.NumbaDebugInfoWarning is DebugInfoWarning


def test_no_debug_info_warning_for_a_readable_source(device):
    import linecache

    # A file (this one), a cell registered in linecache as IPython does, and lineinfo=True
    # (line tables only) of an exec'd function: nothing to warn about.
    name = "<ipython-input-cudajit-debug>"
    text = EXEC_KERNEL.lstrip("\n")
    linecache.cache[name] = (len(text), None, text.splitlines(True), name)
    try:
        scope = {}
        exec(compile(text, name, "exec"), {"cuda": cuda}, scope)  # noqa: S102
        out = cuda.to_device(np.zeros(1, np.int32))
        with warnings.catch_warnings():
            warnings.simplefilter("error", DebugInfoWarning)
            cuda.jit(debug=True, opt=False)(scope["foo"])[1, 1](out)
            cuda.jit(lineinfo=True)(_exec_defined(EXEC_KERNEL))[1, 1](out)
            cuda.jit(LOCALS_SIG, debug=True, opt=False)(locals_and_rebinding)
    finally:
        linecache.cache.pop(name, None)
    assert out.copy_to_host()[0] == 7


RECORD = np.dtype([("a", np.int32), ("b", np.float32)])


@pytest.mark.parametrize("dtype", [np.int32, np.complex64, np.bool_, np.float16, RECORD],
                         ids=["int32", "complex64", "bool", "float16", "record"])
def test_shared_and_local_arrays_are_variables_with_generic_data_pointers(dtype, check_ptx,
                                                                         device):
    # numba-cuda's test_shared_memory_address_class_*: the data pointer of a shared or local
    # array is a generic address (cudajit's arrays hold generic addresses), so its DWARF
    # pointer type has no address space and cuda-gdb reads the elements through it.
    @cuda.jit(debug=True, opt=False)
    def kernel(out):
        shared_arr = cuda.shared.array(32, dtype=dtype)
        local_arr = cuda.local.array(32, dtype=dtype)
        i = cuda.grid(1)
        if i < 32:
            shared_arr[i] = out[i]
            local_arr[i] = shared_arr[i]
            out[i] = local_arr[i]

    host = np.arange(32).astype(dtype) if dtype is not RECORD else np.zeros(32, RECORD)
    if dtype is RECORD:
        host["a"], host["b"] = np.arange(32), np.arange(32) * 0.5
    out = cuda.to_device(host)
    kernel[1, 32](out)
    np.testing.assert_array_equal(out.copy_to_host(), host)
    ((sig, llvm_ir),) = kernel.inspect_llvm().items()
    for name in ("shared_arr", "local_arr"):
        array = described(llvm_ir, name)
        assert "DW_TAG_structure_type" in array and "array(" in array
        members = re.findall(r"![0-9]+", node(llvm_ir, re.search(r"elements: (![0-9]+)",
                                                                  array)[1]))
        data = node(llvm_ir, members[0])
        assert 'name: "data"' in data
        pointer = node(llvm_ir, re.search(r"baseType: (![0-9]+)", data)[1])
        assert "DW_TAG_pointer_type" in pointer and "dwarfAddressSpace" not in pointer
    assert "addrspace(3)" in llvm_ir  # the shared array itself is in shared memory
    check_ptx(kernel.inspect_asm(sig))


def named_parameters(n, a, pair, out):
    out[0] = n + a[0, 0] + pair[0] + pair[1]


@pytest.mark.parametrize("debug", [False, True])
def test_the_llvm_arguments_are_named_after_the_python_parameters(debug):
    # Numba names a kernel's LLVM arguments as its parameters (test_kernel_args_names). A
    # kernel's array and tuple parameters are several arguments, each named for its part;
    # a parameter's slot (debug=True) is `x.addr`, as clang names it.
    sig = (int32, float64[:, ::1], cuda.types.UniTuple(int64, 2), float64[::1])
    kernel = cuda.jit(sig, debug=debug, opt=False)(named_parameters)
    llvm_ir = kernel.inspect_llvm(sig)
    define = re.search(r"^define ptx_kernel void @named_parameters\((.*)\)", llvm_ir, re.M)[1]
    expected = ["i32 %n", "ptr %a.data", "i64 %a.shape.0", "i64 %a.shape.1",
                "i64 %a.strides.0", "i64 %a.strides.1", "i64 %pair.0", "i64 %pair.1",
                "ptr %out.data", "i64 %out.shape.0", "i64 %out.strides.0"]
    if debug:  # the hidden exception record
        expected += ["ptr %exception.record.data", "i64 %exception.record.shape.0",
                     "i64 %exception.record.strides.0"]
    assert define.split(", ") == expected
    assert re.search(r"store i32 %n, ptr %n\.addr,", llvm_ir)
    if debug:
        assert re.search(r"#dbg_declare\(ptr %n\.addr, (![0-9]+),", llvm_ir)


def test_a_device_functions_llvm_arguments_are_named_after_its_parameters():
    @cuda.jit("float64(float64, int64)", device=True, debug=True, opt=False)
    def shifted(x, k):
        return x + k

    llvm_ir = shifted.inspect_llvm(shifted.signatures[0])
    assert re.search(r"^define .*\(double %x, i64 %k", llvm_ir, re.M), llvm_ir
    assert "%x.addr = alloca double" in llvm_ir and "%k.addr = alloca i64" in llvm_ir


def test_debug_compiles_of_a_function_without_a_readable_file_warn_alone_too():
    # compile_ptx(debug=True) and a debug device function's inspect_llvm compile it alone.
    pyfunc = _exec_defined(EXEC_KERNEL)
    with pytest.warns(DebugInfoWarning, match="Could not find source for function"):
        cuda.compile_ptx(pyfunc, (int32[::1],), debug=True, opt=False)
    device_text = "def foo(x):\n    return x + 1\n"
    device = cuda.jit("int32(int32)", device=True, debug=True, opt=False)(
        _exec_defined(device_text))
    with pytest.warns(DebugInfoWarning, match="Could not find source for function"):
        device.inspect_llvm()
    with warnings.catch_warnings():
        warnings.simplefilter("error", DebugInfoWarning)
        cuda.compile_ptx(pyfunc, (int32[::1],), lineinfo=True)
        cuda.jit("int32(int32)", device=True)(_exec_defined(device_text)).inspect_llvm()
