// The dashboard's sections, in the order of its menu. A capability adds its
// page here and in index.ts.
export const SECTIONS = [
  { path: "", label: "Overview" },
  { path: "/queues", label: "Queues" },
  { path: "/running", label: "In flight" },
  { path: "/scheduled", label: "Scheduled" },
  { path: "/retry", label: "Retry" },
  { path: "/dead", label: "Dead" },
  { path: "/succeeded", label: "Succeeded" },
  { path: "/cancelled", label: "Cancelled" },
  { path: "/expired", label: "Expired" },
  { path: "/schedules", label: "Recurring" },
  { path: "/ordered", label: "Ordered" },
  { path: "/workflows", label: "Workflows" },
  { path: "/locks", label: "Locks" },
  { path: "/ticks", label: "Ticks" },
  { path: "/metrics", label: "Metrics" },
] as const;
