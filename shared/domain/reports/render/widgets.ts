import type { ReportWidgetValue } from '../../../model/report-schemas';
import { buildTree, flatten, leaves, strip, summarise, totalsOf } from './changes';
import { dashboardPdf, graphSnapshot } from './chart-widgets';
import { commitmentsWidget } from './commitments-widget';
import { compare, periodInfo, type Resolved, resolve } from './cost-query';
import { markdownToHtml, markdownToMrkdwn, markdownToText } from './markdown';
import type { RenderContext, WidgetData } from './widget-data';

/**
 * The data of each widget, computed from the query engine for the report's context at the run's
 * time (`now`): the same request `POST /queries/explorer` answers, so every figure equals the
 * explorer's. This is what `POST /reports/preview-widget` answers and what the email and Slack
 * formats are written from.
 */
export async function renderWidget(ctx: RenderContext, widget: ReportWidgetValue): Promise<WidgetData> {
  switch (widget.type) {
    case 'TEXT':
      return {
        type: 'TEXT',
        title: widget.title ?? null,
        markdown: widget.contentMarkdown,
        html: markdownToHtml(widget.contentMarkdown),
        mrkdwn: markdownToMrkdwn(widget.contentMarkdown),
        text: markdownToText(widget.contentMarkdown),
      };
    case 'DIGEST': {
      const r = await resolve(ctx, widget, widget.queries, true);
      const dims = [...(r.dims.length ? r.dims : ['service']), ...widget.additionalGroupBy];
      const res = await compare(ctx, r, dims);
      const totals = totalsOf(res);
      const tree = buildTree(leaves(res, dims), dims, widget.minAbsoluteDiff, widget.minRelativeDiff);
      const movers = flatten(tree)
        .filter((n) => n.highlighted)
        .sort((a, b) => Math.abs(b.diff) - Math.abs(a.diff))
        .slice(0, widget.topLargestAbsoluteChange)
        .map(strip);
      return {
        type: 'DIGEST',
        title: widget.title ?? r.query?.alias ?? null,
        display: widget.display,
        groupBy: dims,
        thresholds: {
          minAbsoluteDiff: widget.minAbsoluteDiff,
          minRelativeDiff: widget.minRelativeDiff,
          topLargestAbsoluteChange: widget.topLargestAbsoluteChange,
        },
        ...periodInfo(r.currency, res),
        totals,
        tree,
        movers,
        summary: summarise(totals, tree, res.currency, res.period),
        ...(await digestOutlook(ctx, r, res.dataThrough)),
      };
    }
    case 'TOP_FLOP': {
      const r = await resolve(ctx, widget, widget.queries, true);
      const dim = r.dims[0] ?? 'service';
      const res = await compare(ctx, r, [dim]);
      const nodes = buildTree(leaves(res, [dim]), [dim], 0, 0).map(strip);
      return {
        type: 'TOP_FLOP',
        title: widget.title ?? r.query?.alias ?? null,
        groupBy: dim,
        ...periodInfo(r.currency, res),
        totals: totalsOf(res),
        increases: nodes.filter((n) => n.diff > 0).slice(0, widget.topN),
        decreases: nodes
          .filter((n) => n.diff < 0)
          .sort((a, b) => a.diff - b.diff)
          .slice(0, widget.flopN),
      };
    }
    case 'GRAPH_SNAPSHOT':
      return graphSnapshot(ctx, widget);
    case 'DASHBOARD_PDF':
      return dashboardPdf(ctx, widget);
    case 'COMMITMENTS':
      return commitmentsWidget(ctx, widget);
  }
}

/**
 * A DIGEST's month-end forecast and budgets line. Both run the forecasting model, which is its own
 * chunk, loaded by the first DIGEST: a function that previews or renders other widgets never loads it.
 */
async function digestOutlook(ctx: RenderContext, r: Resolved, dataThrough: string | null) {
  const [{ monthForecast }, { budgetsOverview }] = await Promise.all([
    import('./month-forecast'),
    import('../../budgets/digest'),
  ]);
  return {
    forecast: await monthForecast(ctx, r, dataThrough),
    budgets: await budgetsOverview(ctx.orgId, ctx.timeZone, ctx.now),
  };
}
