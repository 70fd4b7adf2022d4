// Preloaded into a measured process: reports its peak resident memory and CPU time on exit (stderr, last line).
process.on('exit', () => {
  const cpu = process.cpuUsage();
  process.stderr.write(`\nIRW_BENCH ${process.resourceUsage().maxRSS} ${(cpu.user + cpu.system) / 1e6}\n`);
});
