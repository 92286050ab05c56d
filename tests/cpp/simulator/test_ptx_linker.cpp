// The PTX linker behind cuLink* and the nvJitLink stand-in: what the driver's linker does with
// PTX (externs resolved, .weak definitions merged, internal names kept apart), and refusals
// that say why.
#include <catch2/catch.hpp>

#include "link/ptx_linker.hpp"
#include "sim_harness.hpp"

using namespace cudajit::sim;
using Catch::Matchers::Contains;

namespace {

// A device function `twice` defined in one module, called from a kernel in another.
const std::string kCaller = testing::ptx_module(R"(
.extern .func (.param .b32 r) twice(.param .b32 x);
.visible .entry k(.param .u64 out) {
	.reg .b32 %r<3>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, 21;
	{
	.param .b32 a;
	st.param.b32 [a], %r1;
	.param .b32 ret;
	call.uni (ret), twice, (a);
	ld.param.b32 %r2, [ret];
	}
	st.global.u32 [%rd1], %r2;
	ret;
}
)");

const std::string kCallee = testing::ptx_module(R"(
.visible .func (.param .b32 r) twice(.param .b32 x) {
	.reg .b32 %r<3>;
	ld.param.b32 %r1, [x];
	add.s32 %r2, %r1, %r1;
	st.param.b32 [r], %r2;
	ret;
}
)");

uint32_t run_k(const std::string& linked) {
  auto program = testing::load(linked);
  return testing::run_with_output<uint32_t>(*program, "k", 1, {1, 1, 1})[0];
}

}  // namespace

TEST_CASE("an extern function resolves to another module's visible definition",
          "[simulator][link]") {
  link::PtxLinker linker;
  linker.add_ptx(kCaller, "caller.ptx");
  linker.add_ptx(kCallee, "callee.ptx");
  REQUIRE(run_k(linker.link()) == 42u);
  // The order of the inputs does not matter.
  link::PtxLinker reversed;
  reversed.add_ptx(kCallee, "callee.ptx");
  reversed.add_ptx(kCaller, "caller.ptx");
  REQUIRE(run_k(reversed.link()) == 42u);
}

TEST_CASE("an extern function no module defines is an unresolved-symbol error",
          "[simulator][link]") {
  link::PtxLinker linker;
  linker.add_ptx(kCaller, "caller.ptx");
  REQUIRE_THROWS_WITH(linker.link(),
                      Contains("unresolved extern function 'twice'") && Contains("caller.ptx"));
}

TEST_CASE("two visible definitions of one name are a multiple-definition error",
          "[simulator][link]") {
  link::PtxLinker linker;
  linker.add_ptx(kCallee, "a.ptx");
  linker.add_ptx(kCallee, "b.ptx");
  REQUIRE_THROWS_WITH(linker.link(), Contains("multiple definition of 'twice'") &&
                                         Contains("b.ptx") && Contains("a.ptx"));
}

TEST_CASE("weak definitions of one name are merged into one", "[simulator][link]") {
  std::string weak = kCallee;
  weak.replace(weak.find(".visible .func"), 8, ".weak");
  link::PtxLinker linker;
  linker.add_ptx(weak, "a.ptx");
  linker.add_ptx(weak, "b.ptx");
  linker.add_ptx(kCaller, "caller.ptx");
  REQUIRE(run_k(linker.link()) == 42u);
}

TEST_CASE("internal functions of the same name in two modules stay apart", "[simulator][link]") {
  // Each module has its own internal `helper`; each kernel must call its own.
  auto module = [](const std::string& kernel, int value) {
    return testing::ptx_module(R"(
.func (.param .b32 r) helper() {
	.reg .b32 %r<2>;
	mov.u32 %r1, )" + std::to_string(value) +
                               R"(;
	st.param.b32 [r], %r1;
	ret;
}
.visible .entry )" + kernel + R"((.param .u64 out) {
	.reg .b32 %r<2>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [out];
	{
	.param .b32 ret;
	call.uni (ret), helper, ();
	ld.param.b32 %r1, [ret];
	}
	st.global.u32 [%rd1], %r1;
	ret;
}
)");
  };
  link::PtxLinker linker;
  linker.add_ptx(module("first", 1), "first.ptx");
  linker.add_ptx(module("second", 2), "second.ptx");
  auto program = testing::load(linker.link());
  REQUIRE(testing::run_with_output<uint32_t>(*program, "first", 1, {1, 1, 1})[0] == 1u);
  REQUIRE(testing::run_with_output<uint32_t>(*program, "second", 1, {1, 1, 1})[0] == 2u);
}

TEST_CASE("weak variables with brace initialisers are merged into one", "[simulator][link]") {
  // As NVRTC writes libcu++'s constants: the ';' on the line after the braces. Each module
  // defines them; the link keeps one definition and no stray ';' of the others.
  const std::string days =
      ".weak .global .align 1 .b8 monday[1] = {1}\n;\n"
      ".weak .global .align 1 .b8 tuesday[2] = {2, 3}\n;\n";
  link::PtxLinker linker;
  linker.add_ptx(testing::ptx_module(days), "a.ptx");
  linker.add_ptx(testing::ptx_module(days), "b.ptx");
  linker.add_ptx(kCaller, "caller.ptx");
  linker.add_ptx(kCallee, "callee.ptx");
  const std::string linked = linker.link();
  REQUIRE(run_k(linked) == 42u);
  auto program = testing::load(linked);
  REQUIRE(program->globals.size() == 2);
  REQUIRE(program->globals[1]->storage == std::vector<uint8_t>{2, 3});
}

TEST_CASE("internal functions called through their addresses stay apart in a link",
          "[simulator][link][indirect]") {
  // Each module takes the address of its own internal `dtor` (mov and a call table's
  // initialiser, as numba-cuda's runtime does) and calls it through a prototype.
  auto module = [](const std::string& kernel, int value) {
    return testing::ptx_module(R"(
.func (.param .b32 r) dtor() {
	.reg .b32 %r<2>;
	mov.u32 %r1, )" + std::to_string(value) +
                               R"(;
	st.param.b32 [r], %r1;
	ret;
}
.global .u64 table[1] = {dtor};
.visible .entry )" + kernel + R"((.param .u64 out) {
	.reg .b32 %r<3>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.u64 %rd2, dtor;
	ld.global.u64 %rd3, [table];
	{
	.param .b32 ret;
	proto : .callprototype (.param .b32 _) _ ();
	call (ret), %rd2, (), proto;
	ld.param.b32 %r1, [ret];
	}
	{
	.param .b32 ret;
	call (ret), %rd3, (), table;
	ld.param.b32 %r2, [ret];
	}
	add.s32 %r1, %r1, %r2;
	st.global.u32 [%rd1], %r1;
	ret;
}
)");
  };
  link::PtxLinker linker;
  linker.add_ptx(module("first", 1), "first.ptx");
  linker.add_ptx(module("second", 2), "second.ptx");
  auto program = testing::load(linker.link());
  REQUIRE(testing::run_with_output<uint32_t>(*program, "first", 1, {1, 1, 1})[0] == 2u);
  REQUIRE(testing::run_with_output<uint32_t>(*program, "second", 1, {1, 1, 1})[0] == 4u);
}

TEST_CASE("an extern variable resolves to another module's definition", "[simulator][link]") {
  std::string user = testing::ptx_module(R"(
.extern .global .align 4 .u32 counter;
.visible .entry k(.param .u64 out) {
	.reg .b32 %r<2>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [out];
	mov.u64 %rd2, counter;
	ld.global.u32 %r1, [%rd2];
	st.global.u32 [%rd1], %r1;
	ret;
}
)");
  std::string owner = testing::ptx_module(".visible .global .align 4 .u32 counter = 7;\n");
  link::PtxLinker linker;
  linker.add_ptx(user, "user.ptx");
  linker.add_ptx(owner, "owner.ptx");
  auto program = testing::load(linker.link());
  REQUIRE(program->globals.size() == 1);
  testing::TestMemory memory;  // the module's variables, entered as the driver enters them
  for (const auto& g : program->globals)
    memory.memory.add(uint64_t(uintptr_t(g->storage.data())), g->storage.size(), g->name);
  uint32_t* out = memory.buffer(std::vector<uint32_t>(1));
  uint64_t address = uint64_t(uintptr_t(out));
  testing::launch(*program, "k", {1, 1, 1}, {1, 1, 1}, {&address}, memory.memory);
  REQUIRE(*out == 7u);
}

TEST_CASE("the linked module takes the newest .version and the link's target",
          "[simulator][link]") {
  std::string old = ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry a() { ret; }\n";
  std::string newer =
      ".version 8.5\n.target sm_80\n.address_size 64\n.visible .entry b() { ret; }\n";
  link::PtxLinker linker("sm_90a");
  linker.add_ptx(old, "old.ptx");
  linker.add_ptx(newer, "new.ptx");
  std::string linked = linker.link();
  REQUIRE_THAT(linked, Contains(".version 8.5") && Contains(".target sm_90a"));
  auto module = ptx::parse(linked);
  REQUIRE(module.find_function("a") != nullptr);
  REQUIRE(module.find_function("b") != nullptr);
  // A module for a newer target than the link's is refused.
  link::PtxLinker older_link("sm_75");
  older_link.add_ptx(newer, "new.ptx");
  REQUIRE_THROWS_WITH(older_link.link(), Contains("new.ptx") && Contains("sm_80"));
}

TEST_CASE("the .file numbers of each module are kept apart", "[simulator][link]") {
  std::string a =
      testing::ptx_module(".file 1 \"a.py\"\n.visible .entry a() {\n.loc 1 10 0\n\tret;\n}\n");
  std::string b =
      testing::ptx_module(".file 1 \"b.py\"\n.visible .entry b() {\n.loc 1 20 0\n\tret;\n}\n");
  link::PtxLinker linker;
  linker.add_ptx(a, "a.ptx");
  linker.add_ptx(b, "b.ptx");
  auto module = ptx::parse(linker.link());
  REQUIRE(module.files.at(1) == "a.py");
  REQUIRE(module.files.at(2) == "b.py");
}

TEST_CASE("a cubin is refused with the reason", "[simulator][link]") {
  const char elf[] =
      "\x7f"
      "ELF\x02\x01\x01";
  link::PtxLinker linker;
  REQUIRE_THROWS_WITH(linker.add_image(elf, sizeof elf, "k.cubin"),
                      Contains("k.cubin") && Contains("cubin") && Contains("runs PTX"));
  REQUIRE_THROWS_WITH(link::PtxLinker().link(), Contains("nothing to link"));
}

TEST_CASE("the PTX inside a fatbin is linked", "[simulator][link]") {
  // A fatbin of one uncompressed PTX entry, laid out as fatbinary writes it: the container
  // header (magic, version 1, header size 16, body size), the entry header (kind 1 = PTX,
  // header size 0x40, payload size, flags 0) and the payload.
  std::string ptx = kCallee + std::string(1, '\0');
  std::vector<uint8_t> fatbin(16 + 0x40 + ptx.size(), 0);
  auto put = [&](size_t at, uint64_t value, size_t bytes) {
    std::memcpy(&fatbin[at], &value, bytes);
  };
  put(0, 0xBA55ED50u, 4);
  put(4, 1, 2);
  put(6, 16, 2);
  put(8, 0x40 + ptx.size(), 8);
  put(16, 1, 2);
  put(16 + 4, 0x40, 4);
  put(16 + 8, ptx.size(), 8);
  std::memcpy(&fatbin[16 + 0x40], ptx.data(), ptx.size());
  link::PtxLinker linker;
  linker.add_image(fatbin.data(), fatbin.size(), "twice.fatbin");
  linker.add_ptx(kCaller, "caller.ptx");
  REQUIRE(run_k(linker.link()) == 42u);
  // Compressed in the format of toolkits before 12.8, it is refused with what to do.
  put(16 + 0x28, 0x2000, 8);
  REQUIRE_THROWS_WITH(link::PtxLinker().add_image(fatbin.data(), fatbin.size(), "z.fatbin"),
                      Contains("compressed"));
}

TEST_CASE("a register limit gives each kernel of the link a .maxnreg", "[simulator][link]") {
  link::PtxLinker linker;
  linker.limit_registers(38);
  linker.add_ptx(kCaller, "caller.ptx");
  linker.add_ptx(kCallee, "callee.ptx");
  auto module = ptx::parse(linker.link());
  REQUIRE(module.find_function("k")->maxnreg == 38);
  REQUIRE(module.find_function("twice")->maxnreg == 0);  // device functions take no .maxnreg
}
