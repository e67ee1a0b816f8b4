// The dashboard's menu: its pages in three groups, so the top row holds five
// words at any width (Overview, Jobs, Workflows, Operations, Log out) and the
// current group's pages sit in a row of their own. A capability adds its page
// to a group here and its route in index.ts.
export const GROUPS = [
  { label: "Overview", pages: [{ path: "", label: "Overview" }] },
  {
    label: "Jobs",
    pages: [
      { path: "/queues", label: "Queues" },
      { path: "/running", label: "In flight" },
      { path: "/scheduled", label: "Scheduled" },
      { path: "/retry", label: "Retry" },
      { path: "/dead", label: "Dead" },
      { path: "/succeeded", label: "Succeeded" },
      { path: "/cancelled", label: "Cancelled" },
      { path: "/expired", label: "Expired" },
      { path: "/ordered", label: "Ordered" },
    ],
  },
  { label: "Workflows", pages: [{ path: "/workflows", label: "Workflows" }] },
  {
    label: "Operations",
    pages: [
      { path: "/schedules", label: "Recurring" },
      { path: "/ticks", label: "Ticks" },
      { path: "/locks", label: "Locks" },
      { path: "/metrics", label: "Metrics" },
    ],
  },
] as const;
