// The pages' stylesheet, served as /app.css: colour says healthy (green), busy (blue), stuck (red) or set aside (grey).

export const PAGE_STYLE = `
:root { font-family: system-ui, sans-serif; color: #1d232a; background: #f6f7f9; }
body { margin: 0 auto; max-width: 1400px; padding: 1rem 1.5rem; }
header { display: flex; align-items: baseline; gap: 1.5rem; flex-wrap: wrap; }
h1 { margin: 0.2rem 0; font-size: 1.5rem; }
h2 { font-size: 1.05rem; margin: 1.5rem 0 0.5rem; }
a { color: #1f5fbf; }
.revision { color: #4b5563; }
.live { margin-left: auto; font-size: 0.85rem; color: #6b7280; }
.live.on::before { content: "● "; color: #16a34a; }
.summary { display: flex; gap: 0.6rem; margin: 1rem 0; flex-wrap: wrap; }
.summary a.count { padding: 0.3rem 0.8rem; border-radius: 1rem; background: #e5e7eb; color: #1d232a; text-decoration: none; }
.summary a.count.on { outline: 3px solid #1d4ed8; }
.summary a.stuck-count { background: #fee2e2; color: #7f1d1d; } .summary a.healthy-count { background: #dcfce7; color: #14532d; }
.summary a.busy-count { background: #dbeafe; color: #1e3a8a; }
nav.views { display: flex; gap: 1rem; } nav.views a.on { font-weight: 700; text-decoration: none; color: #1d232a; }
.filters { display: flex; gap: 0.5rem; flex-wrap: wrap; margin: 0.5rem 0; }
.filters input, .filters select { padding: 0.3rem 0.5rem; border: 1px solid #cbd5e1; border-radius: 0.3rem; font: inherit; }
.filters input[type=search] { min-width: 16rem; }
.chips { display: flex; gap: 0.4rem; margin: 0.4rem 0; flex-wrap: wrap; }
.chip { padding: 0.15rem 0.6rem; border-radius: 0.8rem; background: #e0e7ff; text-decoration: none; font-size: 0.85rem; }
.pager { display: flex; gap: 1.2rem; margin: 0.6rem 0; color: #4b5563; }
th a { color: inherit; text-decoration: none; }
#nodes td:nth-child(1), #nodes td:nth-child(7), #nodes td:nth-child(8) { white-space: nowrap; }
progress.bar { width: 100%; height: 1.2rem; }
.bucket h3 { font-size: 0.95rem; margin: 1rem 0 0.3rem; } .bucket ul { margin: 0; padding-left: 1.2rem; columns: 3; }
.bucket.failed ul { columns: 1; } .bucket.failed li { margin-bottom: 0.5rem; } .bucket.failed .reason { white-space: pre-line; display: block; }
.bucket.failed h3 { color: #b91c1c; } .bucket.held h3, .bucket.waiting h3 { color: #92400e; }
pre.errors { white-space: pre-wrap; margin: 0; color: #991b1b; }
table { border-collapse: collapse; width: 100%; background: white; font-size: 0.92rem; }
th, td { text-align: left; padding: 0.4rem 0.6rem; border-bottom: 1px solid #e5e7eb; vertical-align: top; }
th { background: #eef0f3; font-weight: 600; }
tr.stuck { background: #fef2f2; }
.badge { display: inline-block; padding: 0.1rem 0.55rem; border-radius: 0.7rem; font-weight: 600; color: white; }
.healthy { background: #16a34a; } .busy { background: #2563eb; } .stuck { background: #dc2626; } .aside { background: #6b7280; }
.drift { background: #d97706; }
.reason { color: #991b1b; max-width: 38rem; }
.clamp { display: -webkit-box; -webkit-line-clamp: 3; -webkit-box-orient: vertical; overflow: hidden; white-space: pre-line; }
.waiting { color: #92400e; }
.problem { border: 2px solid #dc2626; background: #fef2f2; padding: 0.8rem 1rem; border-radius: 0.4rem; margin: 1rem 0; }
.problem code { font-weight: 700; }
.notice { border: 2px solid #d97706; background: #fffbeb; padding: 0.8rem 1rem; border-radius: 0.4rem; margin: 1rem 0; }
.rejected { border: 2px solid #dc2626; background: #fef2f2; padding: 0.8rem 1rem; border-radius: 0.4rem; }
.rejected pre { white-space: pre-wrap; margin: 0.4rem 0 0; }
.diagram { display: flex; flex-direction: column; gap: 0.8rem; }
.diagram .row { display: flex; align-items: center; gap: 0.5rem; flex-wrap: wrap; }
.diagram .state { border: 2px solid #9ca3af; border-radius: 0.5rem; padding: 0.4rem 0.7rem; background: white; color: #4b5563; }
.diagram .state.lit { border-color: #1d4ed8; background: #dbeafe; color: #1e3a8a; font-weight: 700; box-shadow: 0 0 0 3px #93c5fd; }
.diagram .state.lit.stuck-state { border-color: #b91c1c; background: #fee2e2; color: #7f1d1d; box-shadow: 0 0 0 3px #fca5a5; }
.diagram .state.lit.good-state { border-color: #15803d; background: #dcfce7; color: #14532d; box-shadow: 0 0 0 3px #86efac; }
.diagram .group { border: 2px dashed #9ca3af; border-radius: 0.6rem; padding: 0.4rem; display: flex; gap: 0.4rem; align-items: center; }
.diagram .group.lit { border-color: #1d4ed8; }
.diagram .group > .label { font-size: 0.8rem; color: #6b7280; margin-right: 0.3rem; }
.diagram .arrow { color: #9ca3af; }
.muted { color: #6b7280; }
`;
