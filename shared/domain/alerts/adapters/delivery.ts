import { claimDelivery, finishDelivery } from '../../../db/notifications-repo';
import type { DeliveryStore } from '../ports';

/** The notify worker's adapter: delivery records in DynamoDB (docs/architecture.md, "Dependencies of the domain"). */
export const deliveryStore: DeliveryStore = { claim: claimDelivery, finish: finishDelivery };
