import { arch, cpus, freemem, loadavg, platform, release, totalmem } from 'node:os';
import { formatBytes } from './table.js';

/** The machine a run measured on, for the results file: numbers mean little without it. */

export interface Machine {
  readonly node: string;
  readonly os: string;
  readonly cpuModel: string;
  readonly cpuCount: number;
  readonly totalMemory: number;
  readonly freeMemory: number;
  /** One-minute load average when the run started. */
  readonly loadAtStart: number;
}

export function describeMachine(): Machine {
  const processors = cpus();
  return {
    node: process.version,
    os: `${platform()} ${release()} ${arch()}`,
    cpuModel: processors[0]?.model.trim() ?? 'unknown',
    cpuCount: processors.length,
    totalMemory: totalmem(),
    freeMemory: freemem(),
    loadAtStart: loadavg()[0] ?? 0,
  };
}

export function machineLines(machine: Machine, loadAtEnd: number): string[] {
  return [
    `Node ${machine.node} on ${machine.os}`,
    `CPU: ${machine.cpuModel}, ${machine.cpuCount} logical processors`,
    `Memory: ${formatBytes(machine.totalMemory)}, ${formatBytes(machine.freeMemory)} free at the start`,
    `Load average (1 min): ${machine.loadAtStart.toFixed(2)} at the start, ${loadAtEnd.toFixed(2)} at the end. Anything above 0 is other work sharing these processors; it makes single runs noisy, which is why the table reports medians.`,
  ];
}
