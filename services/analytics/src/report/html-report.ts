import { AnalyticsReport } from './analytics-report';
import { escapeHtml } from './html-escape';
import { dollars } from './money';
import { columnChart, horizontalBars } from './svg-charts';

function table(headers: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const head = headers.map((h) => `<th>${escapeHtml(h)}</th>`).join('');
  const body = rows.map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`).join('');
  return `<table><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
}

/** One self-contained page: the funnel and daily revenue as inline SVG, the rest as tables. */
export function renderHtmlReport(report: AnalyticsReport, generatedAt: Date = new Date()): string {
  const registered = report.funnel[0]?.users ?? 0;
  const funnel = horizontalBars(
    report.funnel.map((step) => ({
      label: step.stage,
      value: step.users,
      caption:
        registered > 0
          ? `${step.users} (${Math.round((step.users / registered) * 100)}%)`
          : String(step.users),
    })),
    { title: 'Onboarding funnel' },
  );
  const revenue = columnChart(
    report.revenueByDay.map((d) => ({
      label: d.day.slice(5),
      value: d.revenueCents,
      caption: `$${dollars(d.revenueCents)}`,
    })),
    { title: 'Revenue per day (USD)' },
  );
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Shop analytics</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:60rem}table{border-collapse:collapse;margin:.5rem 0 1.5rem}td,th{border:1px solid #ddd;padding:.25rem .6rem;text-align:left}th{background:#f5f5f5}</style>
</head><body>
<h1>Shop analytics</h1>
<p>Generated ${escapeHtml(generatedAt.toISOString())} from the analytics projections.</p>
<h2>Onboarding funnel</h2>
${funnel}
<h2>Revenue per day</h2>
${revenue}
${table(
  ['day', 'orders', 'revenue (USD)'],
  report.revenueByDay.map((d) => [d.day, d.orders, dollars(d.revenueCents)]),
)}
<h2>Revenue per retailer</h2>
${table(
  ['retailer', 'orders', 'revenue (USD)'],
  report.revenueByRetailer.map((r) => [r.retailer, r.orders, dollars(r.revenueCents)]),
)}
<h2>Deposits per day</h2>
${table(
  ['day', 'deposits', 'USDMX'],
  report.depositsByDay.map((d) => [d.day, d.deposits, d.usdmxAmount]),
)}
<h2>Top products added to carts</h2>
${table(
  ['product', 'name', 'retailer', 'adds'],
  report.topProducts.map((p) => [p.productId, p.productName, p.retailer, p.adds]),
)}
<h2>Chat sessions per day</h2>
${table(
  ['day', 'sessions'],
  report.sessionsByDay.map((d) => [d.day, d.sessions]),
)}
<h2>Outside agents (MCP), on shoppers' behalf</h2>
${table(
  ['agent', 'cart adds', 'orders'],
  report.agents.map((a) => [a.clientName, a.cartAdds, a.orders]),
)}
</body></html>
`;
}
