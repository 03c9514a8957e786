// htm: hardware time manager, a bus slave that keeps the system time and
// wakes tasks whose delay ended (the operations GetTime, SetTime, TaskDelay,
// GetTasksToWake and ClearTask of the Xenomai hardware-time-manager paper).
//
// Time advances by one on each clock cycle with `tick` high (the time base:
// a divided clock or an external pulse). A task's delay of d ticks (d >= 1;
// 0 counts as 1) loaded in a cycle ends at the d-th tick after that cycle
// (a tick in the cycle of the load does not count): its wake bit is set in
// the cycle of that tick and the interrupt is raised while any wake bit is
// set and enabled. Setting the time changes the time read back only:
// pending delays keep their remaining ticks.
//
// Two architectures, one register map and the same behaviour on it, cycle
// for cycle as long as the time base leaves at least NTASKS + 1 clock cycles
// between ticks (ARCH 1 needs them to look at every task once per tick;
// with fewer, ARCH 1 wakes late, never early):
//   ARCH 0 (the paper's): one down-counter of WIDTH bits per task;
//   ARCH 1 (optimized): one deadline per task against an internal tick
//     count, the deadlines in a memory (LUT RAM on FPGAs) read by one shared
//     comparator that walks the tasks between ticks and marks those due at
//     the next tick; per task it costs a memory word and three flip-flops
//     instead of a counter, its decrementer and its zero test.
//
// Register map (32-bit words, byte offsets; reads of other offsets give 0,
// writes to them and to read-only registers are ignored):
//   0x00 ID        RO  0x48544d31 ("HTM1")
//   0x04 VERSION   RO  0x00010000 (1.0)
//   0x08 CONFIG    RO  [7:0] NTASKS, [15:8] WIDTH, [16] ARCH
//   0x0c CTRL      RW  [0] interrupt enable
//   0x10 TIME_LO   RO  time[31:0]; the read also latches time[63:32] for TIME_HI
//   0x14 TIME_HI   RO  time[63:32] as latched by the last TIME_LO read
//                      (read LO then HI: a consistent 64-bit time)
//   0x18 SET_LO    WO  low word of the next time (held until SET_HI)
//   0x1c SET_HI    WO  time := {SET_HI, SET_LO}: the time of this cycle
//                      (a tick in this cycle is not added)
//   0x20 DELAY_LO  RW  low word of the next delay (held)
//   0x24 DELAY_HI  RW  high word of the next delay (held)
//   0x28 DELAY_ID  WO  task [5:0] := delay {DELAY_HI, DELAY_LO}; replaces a
//                      pending one; its wake bit is left as it is
//   0x2c CLEAR_ID  WO  task [5:0]: delay cancelled, wake bit cleared
//   0x30 WAKE0     RW1C wake bits of tasks 0..31 (write 1s to acknowledge)
//   0x34 WAKE1     RW1C tasks 32..63
//   0x38 ACTIVE0   RO  tasks 0..31 with a pending delay
//   0x3c ACTIVE1   RO  tasks 32..63
// An id >= NTASKS in DELAY_ID or CLEAR_ID is ignored (the id is the field
// [5:0]: higher bits are not decoded, the driver writes none). Fields wider than
// WIDTH are cut to WIDTH bits (time, delays); a delay must be below
// 2^WIDTH - NTASKS - 1 ticks (ARCH 1 takes a deadline up to NTASKS ticks
// behind for one passed).
`default_nettype none

module htm #(
    parameter integer NTASKS = 12,  // 1 .. 64
    parameter integer WIDTH  = 64,  // 16 .. 64
    parameter integer ARCH   = 1    // 0: a counter per task, 1: deadlines + shared comparator
) (
    input  wire        clk,
    input  wire        rst,    // synchronous, active high
    input  wire        tick,   // time base: the time advances in cycles with tick high
    // bus: a read or write of the word at addr in a cycle with sel high
    input  wire        sel,
    input  wire        we,
    input  wire [5:0]  addr,   // word address (byte offset / 4)
    input  wire [31:0] wdata,
    output reg  [31:0] rdata,  // combinational: the word at addr
    output wire        irq
);
  localparam integer IDW = (NTASKS > 1) ? $clog2(NTASKS) : 1;
  localparam [WIDTH-1:0] ONE = {{(WIDTH - 1) {1'b0}}, 1'b1};

  localparam [5:0] A_ID = 6'h00, A_VERSION = 6'h01, A_CONFIG = 6'h02, A_CTRL = 6'h03;
  localparam [5:0] A_TIME_LO = 6'h04, A_TIME_HI = 6'h05, A_SET_LO = 6'h06, A_SET_HI = 6'h07;
  localparam [5:0] A_DELAY_LO = 6'h08, A_DELAY_HI = 6'h09, A_DELAY_ID = 6'h0a, A_CLEAR_ID = 6'h0b;
  localparam [5:0] A_WAKE0 = 6'h0c, A_WAKE1 = 6'h0d, A_ACTIVE0 = 6'h0e, A_ACTIVE1 = 6'h0f;

  // ---- common registers
  reg  [WIDTH-1:0]  time_q;
  reg  [31:0]       hi_snap;
  reg  [31:0]       set_lo;
  reg  [31:0]       delay_lo;
  reg  [31:0]       delay_hi;
  reg               irq_en;
  reg  [NTASKS-1:0] wake;
  wire [NTASKS-1:0] active;
  wire [NTASKS-1:0] fire;    // tasks whose delay ends in this cycle

  wire wr = sel & we;
  wire rd = sel & ~we;
  wire [63:0] time64 = {{(64 - WIDTH) {1'b0}}, time_q};
  wire [63:0] delay64 = {delay_hi, delay_lo};
  wire [WIDTH-1:0] delay_w = delay64[WIDTH-1:0];
  // A delay of 0 counts as 1.
  wire [WIDTH-1:0] delay_eff = (delay_w == {WIDTH{1'b0}}) ? ONE : delay_w;
  wire id_ok = {26'b0, wdata[5:0]} < NTASKS;
  wire load = wr && addr == A_DELAY_ID && id_ok;
  wire clear = wr && addr == A_CLEAR_ID && id_ok;
  wire [IDW-1:0] load_id = wdata[IDW-1:0];
  wire [63:0] wake64 = {{(64 - NTASKS) {1'b0}}, wake};
  wire [63:0] active64 = {{(64 - NTASKS) {1'b0}}, active};
  wire [63:0] ack64 = (wr && addr == A_WAKE0) ? {32'b0, wdata} :
                      (wr && addr == A_WAKE1) ? {wdata, 32'b0} : 64'b0;
  wire [NTASKS-1:0] ack = ack64[NTASKS-1:0];
  wire [63:0] set64 = {wdata, set_lo};
  /* verilator lint_off UNUSEDSIGNAL */
  wire unused = &{1'b0, ack64, set64, delay64};  // bits beyond NTASKS / WIDTH
  /* verilator lint_on UNUSEDSIGNAL */
  wire [NTASKS-1:0] clear_mask = clear ? ({{(NTASKS - 1) {1'b0}}, 1'b1} << load_id) : {NTASKS{1'b0}};

  always @(posedge clk) begin
    if (rst) begin
      time_q <= {WIDTH{1'b0}};
      hi_snap <= 32'b0;
      set_lo <= 32'b0;
      delay_lo <= 32'b0;
      delay_hi <= 32'b0;
      irq_en <= 1'b0;
      wake <= {NTASKS{1'b0}};
    end else begin
      if (wr && addr == A_SET_HI) begin
        time_q <= set64[WIDTH-1:0];
      end else if (tick) begin
        time_q <= time_q + ONE;
      end
      if (rd && addr == A_TIME_LO) hi_snap <= time64[63:32];
      if (wr && addr == A_SET_LO) set_lo <= wdata;
      if (wr && addr == A_DELAY_LO) delay_lo <= wdata;
      if (wr && addr == A_DELAY_HI) delay_hi <= wdata;
      if (wr && addr == A_CTRL) irq_en <= wdata[0];
      wake <= (wake & ~ack & ~clear_mask) | fire;
    end
  end

  assign irq = irq_en & (|wake);

  always @(*) begin
    case (addr)
      A_ID:       rdata = 32'h48544d31;
      A_VERSION:  rdata = 32'h00010000;
      A_CONFIG:   rdata = {15'b0, ARCH[0], WIDTH[7:0], NTASKS[7:0]};
      A_CTRL:     rdata = {31'b0, irq_en};
      A_TIME_LO:  rdata = time64[31:0];
      A_TIME_HI:  rdata = hi_snap;
      A_DELAY_LO: rdata = delay_lo;
      A_DELAY_HI: rdata = delay_hi;
      A_WAKE0:    rdata = wake64[31:0];
      A_WAKE1:    rdata = wake64[63:32];
      A_ACTIVE0:  rdata = active64[31:0];
      A_ACTIVE1:  rdata = active64[63:32];
      default:    rdata = 32'b0;
    endcase
  end

  generate
    if (ARCH == 0) begin : g_naive
      // One down-counter per task: the ticks left; 0 = no pending delay.
      reg [WIDTH-1:0] left [0:NTASKS-1];
      genvar i;
      for (i = 0; i < NTASKS; i = i + 1) begin : g_task
        wire mine = load_id == i;
        assign active[i] = left[i] != {WIDTH{1'b0}};
        assign fire[i] = tick && left[i] == ONE && !(load && mine) && !(clear && mine);
        always @(posedge clk) begin
          if (rst) left[i] <= {WIDTH{1'b0}};
          else if (load && mine) left[i] <= delay_eff;
          else if (clear && mine) left[i] <= {WIDTH{1'b0}};
          else if (tick && active[i]) left[i] <= left[i] - ONE;
        end
      end
    end else begin : g_opt
      // Deadlines against an internal tick count `now` (not changed by SET):
      // a task is due when now reaches its deadline. A walk reads one
      // deadline a cycle, round and round, and marks in `pend` the tasks due
      // at the next tick (or passed: late); that tick moves them to the wake
      // bits. With NTASKS + 1 cycles or more between ticks every task is
      // looked at between any two ticks, so every wake is exact. A load of
      // delay 1 marks its task at once (the walk may have passed it).
      reg  [WIDTH-1:0]  now;
      reg  [WIDTH-1:0]  deadline [0:NTASKS-1];
      reg  [NTASKS-1:0] act;
      reg  [NTASKS-1:0] pend;
      reg  [IDW-1:0]    scan;
      // The count at the next tick to come: now + 1, or now + 2 in a tick's cycle.
      wire [WIDTH-1:0]  due_at = now + {{(WIDTH - 2) {1'b0}}, tick, ~tick};
      wire [WIDTH-1:0]  dl = deadline[scan];
      // Due at that tick, or passed by at most NTASKS ticks (late: ticks came
      // faster than the walk; between two looks at a task NTASKS cycles, so at
      // most NTASKS ticks, pass, and none is lost).
      wire [WIDTH-1:0]  behind = due_at - dl;
      localparam integer WINDOWI = NTASKS + 1;
      localparam [7:0]  WINDOW = WINDOWI[7:0];
      localparam integer LASTI = NTASKS - 1;
      localparam [IDW-1:0] LAST = LASTI[IDW-1:0];
      wire              scan_hit = act[scan] && behind < {{(WIDTH - 8) {1'b0}}, WINDOW};
      wire [NTASKS-1:0] scan_mask = scan_hit ? ({{(NTASKS - 1) {1'b0}}, 1'b1} << scan) : {NTASKS{1'b0}};
      wire [NTASKS-1:0] load_mask = load ? ({{(NTASKS - 1) {1'b0}}, 1'b1} << load_id) : {NTASKS{1'b0}};
      wire [NTASKS-1:0] one_mask = delay_eff == ONE ? load_mask : {NTASKS{1'b0}};

      assign active = act;
      assign fire = tick ? (pend & ~load_mask & ~clear_mask) : {NTASKS{1'b0}};

      always @(posedge clk) begin
        if (load) deadline[load_id] <= now + delay_eff + {{(WIDTH - 1) {1'b0}}, tick};
      end

      always @(posedge clk) begin
        if (rst) begin
          now <= {WIDTH{1'b0}};
          act <= {NTASKS{1'b0}};
          pend <= {NTASKS{1'b0}};
          scan <= {IDW{1'b0}};
        end else begin
          if (tick) now <= now + ONE;
          scan <= scan == LAST ? {IDW{1'b0}} : scan + 1'b1;
          // A tick takes the marked tasks; what the walk finds now is for the next one.
          act <= (act & ~(tick ? pend : {NTASKS{1'b0}}) & ~clear_mask) | load_mask;
          // (In a tick's cycle the walk may look at a task that fires in it:
          // behind by one for the next tick; it is not marked again.)
          pend <= ((tick ? scan_mask & ~pend : pend | scan_mask) & ~clear_mask & ~load_mask) |
                  one_mask;
        end
      end
    end
  endgenerate
endmodule

`default_nettype wire
