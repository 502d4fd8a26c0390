import { AnalyticsReport } from './analytics-report';
import { dollars } from './money';

function table(
  title: string,
  headers: readonly string[],
  rows: readonly (readonly (string | number)[])[],
): string {
  const cells = [headers, ...rows.map((r) => r.map(String))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => String(r[i] ?? '').length)));
  const line = (r: readonly (string | number)[]) =>
    r
      .map((c, i) =>
        typeof c === 'number' || /^[\d.,%$ ()-]+$/.test(String(c))
          ? String(c).padStart(widths[i]!)
          : String(c).padEnd(widths[i]!),
      )
      .join('  ');
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  const body = rows.length > 0 ? rows.map(line).join('\n') : '(none)';
  return `${title}\n${line(headers)}\n${rule}\n${body}\n`;
}

/** The report as plain-text tables for a terminal. */
export function renderTextReport(report: AnalyticsReport): string {
  const registered = report.funnel[0]?.users ?? 0;
  const share = (users: number) => (registered > 0 ? `${((users / registered) * 100).toFixed(1)}%` : '-');
  return [
    table(
      'Onboarding funnel',
      ['stage', 'users', 'of registered'],
      report.funnel.map((s) => [s.stage, s.users, share(s.users)]),
    ),
    table(
      'Revenue per day',
      ['day', 'orders', 'USD'],
      report.revenueByDay.map((d) => [d.day, d.orders, dollars(d.revenueCents)]),
    ),
    table(
      'Revenue per retailer',
      ['retailer', 'orders', 'USD'],
      report.revenueByRetailer.map((r) => [r.retailer, r.orders, dollars(r.revenueCents)]),
    ),
    table(
      'Deposits per day',
      ['day', 'deposits', 'USDMX'],
      report.depositsByDay.map((d) => [d.day, d.deposits, d.usdmxAmount]),
    ),
    table(
      'Top products added to carts',
      ['product', 'name', 'retailer', 'adds'],
      report.topProducts.map((p) => [p.productId, p.productName, p.retailer, p.adds]),
    ),
    table(
      'Chat sessions per day',
      ['day', 'sessions'],
      report.sessionsByDay.map((d) => [d.day, d.sessions]),
    ),
    table(
      "Outside agents (MCP), on shoppers' behalf",
      ['agent', 'cart adds', 'orders'],
      report.agents.map((a) => [a.clientName, a.cartAdds, a.orders]),
    ),
  ].join('\n');
}
