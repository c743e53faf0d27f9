import { quoteIdent } from '../../sql/quote';
import {
  type Columns,
  type Converted,
  type Header,
  monthAfter,
  monthStart,
  type NativeFormat,
  num,
  select,
  tagColumns,
  text,
} from './convert';
import { OCI_SERVICE_CATEGORIES, serviceCategory } from './service-category';

/**
 * Oracle Cloud Infrastructure cost reports (`lineItem/…`, `cost/myCost`, `tags/<namespace>.<key>`).
 */

function oci(h: Header, from: string): Converted {
  const start = h.col('lineItem/intervalUsageStart');
  const correction = `lower(${h.col('lineItem/isCorrection')}) = 'true'`;
  const tags = tagColumns(h.withPrefix('tags/').map((t) => ({ key: t.rest, col: quoteIdent(t.name) })));
  const columns: Columns = {
    ProviderName: `'Oracle'`,
    BilledCost: h.col('cost/myCost'),
    EffectiveCost: h.col('cost/myCost'),
    // The cost at the tenancy's own (negotiated) unit price, as FOCUS defines it (unit price ×
    // quantity); the billed cost where the line has no unit price.
    ContractedCost: `coalesce(${text(`${num(h.col('cost/unitPrice'))} * ${num(h.col('usage/billedQuantity'))}`)}, ${h.col('cost/myCost')})`,
    ContractedUnitPrice: h.col('cost/unitPrice'),
    BillingCurrency: h.col('cost/currencyCode'),
    ChargePeriodStart: start,
    ChargePeriodEnd: h.col('lineItem/intervalUsageEnd'),
    BillingPeriodStart: monthStart(start),
    BillingPeriodEnd: monthAfter(monthStart(start)),
    BillingAccountId: h.col('lineItem/tenantId'),
    // The report names the tenancy by its OCID only.
    BillingAccountName: 'NULL::VARCHAR',
    SubAccountId: h.col('product/compartmentId'),
    SubAccountName: h.col('product/compartmentName'),
    InvoiceIssuerName: `'Oracle'`,
    PublisherName: `'Oracle'`,
    ChargeCategory: `'Usage'`,
    ChargeClass: `CASE WHEN ${correction} THEN 'Correction' END`,
    ChargeFrequency: `'Usage-Based'`,
    ChargeDescription: h.col('product/Description'),
    ServiceCategory: serviceCategory(OCI_SERVICE_CATEGORIES, h.col('product/service')),
    ServiceName: h.col('product/service'),
    RegionId: h.col('product/region'),
    AvailabilityZone: h.col('product/availabilityDomain'),
    ResourceId: h.col('product/resourceId'),
    SkuId: h.col('cost/productSku'),
    ConsumedQuantity: h.col('usage/billedQuantity'),
    ConsumedUnit: h.col('cost/skuUnitDescription'),
    PricingQuantity: h.col('usage/billedQuantity'),
    PricingUnit: h.col('cost/billingUnitReadable'),
    ...tags,
    x_SubscriptionId: h.col('cost/subscriptionId'),
    x_OverageFlag: h.col('cost/overageFlag'),
  };
  return select(columns, from);
}

export const OCI: NativeFormat = {
  id: 'oci',
  label: 'OCI cost report',
  signature: [['cost/myCost'], ['lineItem/intervalUsageStart'], ['cost/currencyCode']],
  convert: oci,
};
